/* Promela twin of server.weft (see README.md). */
#define MAX 2
bit  m;
byte queued;

inline lock(mx) { d_step { mx == 0 -> mx = 1 } }

active [2] proctype client() {
    byte q;
    do
    :: lock(m);
       q = queued;
       if
       :: q < MAX -> queued = q + 1
       :: else
       fi;
       d_step { m = 0; q = 0 }
    od
}

active proctype server() {
    byte q;
    do
    :: lock(m);
       q = queued;
       if
       :: q > 0 -> queued = q - 1
       :: else
       fi;
       assert(queued <= MAX);
       d_step { m = 0; q = 0 }
    od
}
