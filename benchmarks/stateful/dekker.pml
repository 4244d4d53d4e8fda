/* Promela twin of dekker.weft (see README.md). Every loop is a busy
 * loop whose test reads one shared variable, one step per test. */
bool wants[2];
bit  turn;
byte cs;

active [2] proctype p() {
    bit me = _pid;
    bit other = 1 - _pid;
    byte t;
    do
    :: wants[me] = true;
       do
       :: wants[other] ->
          if
          :: turn != me ->
             wants[me] = false;
             do
             :: turn != me
             :: else -> break
             od;
             wants[me] = true
          :: else
          fi
       :: else -> break
       od;
       t = cs;
       d_step { cs = t + 1; t = 0 };
       assert(cs == 1);
       t = cs;
       d_step { cs = t - 1; t = 0 };
       turn = other;
       wants[me] = false
    od
}
