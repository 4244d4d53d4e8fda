/* Promela twin of counter_client.weft (see README.md). */
bit  m;
byte count;

byte res[4];
byte done;           /* atomic in Weft */
bit  phase;          /* atomic in Weft */

inline lock(mx) { d_step { mx == 0 -> mx = 1 } }

active [2] proctype client() {
    byte i = _pid;
    bit  sense = 1;
    byte v;
    do
    :: /* res[2 * i] = inc() */
       lock(m);
       v = count;
       count = v + 1;
       m = 0;
       d_step { res[2 * i] = v; v = 0 };
       if
       :: i == 0 ->          /* res[1] = inc() */
          lock(m);
          v = count;
          count = v + 1;
          m = 0;
          d_step { res[1] = v; v = 0 }
       :: else ->            /* res[3] = get() */
          lock(m);
          v = count;
          m = 0;
          d_step { res[3] = v; v = 0 }
       fi;
       /* the barrier */
       done = done + 1;
       d_step { phase == sense -> sense = 1 - sense }
    od
}

active proctype checker() {
    bit  sense = 1;
    byte a, b, c, d;
    do
    :: done == 2;
       a = res[0];
       b = res[1];
       c = res[2];
       d_step {
          d = res[3];
          assert(a == 0 && b == 1 && c == 2 && d == 3 ||
                 a == 0 && b == 2 && c == 1 && (d == 3 || d == 2) ||
                 a == 1 && b == 2 && c == 0 && (d == 3 || d == 2 || d == 1));
          a = 0; b = 0; c = 0; d = 0
       };
       d_step { count = 0; res[0] = 0; res[1] = 0; res[2] = 0; res[3] = 0; done = 0; phase = sense; sense = 1 - sense }
    od
}
