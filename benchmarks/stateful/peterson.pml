/* Promela twin of peterson.weft (see README.md). The spin loop reads
 * flag[other], then (if it is up) turn: two steps, as in Weft. */
bool flag[2];
bit  turn;
byte cs;

active [2] proctype p() {
    bit me = _pid;
    bit other = 1 - _pid;
    byte t;
    do
    :: flag[me] = true;
       turn = other;
       do
       :: flag[other] ->
          if
          :: turn == other
          :: else -> break
          fi
       :: else -> break
       od;
       t = cs;
       d_step { cs = t + 1; t = 0 };
       assert(cs == 1);
       t = cs;
       d_step { cs = t - 1; t = 0 };
       flag[me] = false
    od
}
