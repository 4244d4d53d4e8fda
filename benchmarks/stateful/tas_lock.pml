/* Promela twin of tas_lock.weft (see README.md). `while tas() {}`: each
 * test-and-set is one atomic step that reads `locked` and writes true;
 * when it was already true that write changes nothing, so the failed
 * attempt is the option that only reads. */
bool locked;
byte cs;

active [2] proctype worker() {
    byte t;
    do
    :: do
       :: atomic { locked -> locked = true }    /* tas() returned true */
       :: atomic { !locked -> locked = true; break }
       od;
       t = cs;
       d_step { cs = t + 1; t = 0 };
       assert(cs == 1);
       t = cs;
       d_step { cs = t - 1; t = 0 };
       locked = false
    od
}
