/* Promela twin of queue_client.weft (see README.md). */
#define CAP 2
bit  m;              /* the mutex: 1 when held */
byte buf[CAP];
byte head;
byte size;

byte res[2];
byte done;           /* atomic in Weft */
bit  phase;          /* atomic in Weft */

inline lock(mx) { d_step { mx == 0 -> mx = 1 } }

active [2] proctype client() {
    byte i = _pid;
    bit  sense = 1;  /* Weft flips it at the top of the loop, with the step before */
    byte s, h, v;
    bool ok;
    do
    :: /* enq(i + 1) */
       lock(m);
       d_step { s = size; ok = false };
       if
       :: s < CAP ->
          h = head;
          d_step { buf[(h + s) % CAP] = i + 1; h = 0 };
          d_step { size = s + 1; ok = true }
       :: else
       fi;
       d_step { m = 0; s = 0; assert(ok); ok = false };
       /* res[i] = deq() */
       lock(m);
       d_step { s = size; v = 0 };
       if
       :: s > 0 ->
          h = head;
          v = buf[h];
          d_step { head = (h + 1) % CAP; h = 0 };
          size = s - 1
       :: else
       fi;
       d_step { m = 0; s = 0 };
       d_step { res[i] = v; v = 0 };
       /* the barrier */
       done = done + 1;
       d_step { phase == sense -> sense = 1 - sense }
    od
}

active proctype checker() {
    bit  sense = 1;
    byte a, b;
    do
    :: done == 2;
       a = res[0];
       d_step { b = res[1]; assert((a == 1 && b == 2) || (a == 2 && b == 1)); a = 0; b = 0 };
       d_step { res[0] = 0; res[1] = 0; done = 0; phase = sense; sense = 1 - sense }
    od
}
