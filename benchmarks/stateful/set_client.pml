/* Promela twin of set_client.weft (see README.md). find(k, c) is the
 * loop over the first c slots: one step per slot read. */
#define CAP  2
#define NONE 255
bit  m;
byte elems[CAP];
byte n;

bool added[2];
bool removed[2];
byte done;           /* atomic in Weft */
bit  phase;          /* atomic in Weft */

inline lock(mx) { d_step { mx == 0 -> mx = 1 } }

/* find(k, c): f is the slot of k among elems[0..c-1], or NONE */
inline find(k) {
    do
    :: j < c ->
       d_step { if :: elems[j] == k -> f = j; j = c :: else -> j++ fi }
    :: else -> break
    od
}

active [2] proctype client() {
    byte i = _pid;
    bit  sense = 1;
    byte c, j, f, t;
    bool ok;
    do
    :: /* added[i] = add(i + 1) */
       lock(m);
       d_step { c = n; j = 0; f = NONE; ok = false };
       find(i + 1);
       if
       :: f == NONE && c < CAP ->
          elems[c] = i + 1;
          d_step { n = c + 1; ok = true }
       :: else
       fi;
       d_step { m = 0; c = 0; j = 0; f = NONE };
       d_step { added[i] = ok; ok = false };
       /* removed[i] = remove(2 - i) */
       lock(m);
       d_step { c = n; j = 0; f = NONE };
       find(2 - i);
       if
       :: f != NONE ->
          t = elems[c - 1];
          d_step { elems[f] = t; t = 0 };
          elems[c - 1] = 0;
          n = c - 1
       :: else
       fi;
       d_step { m = 0; ok = (f != NONE); c = 0; j = 0; f = NONE };
       d_step { removed[i] = ok; ok = false };
       /* the barrier */
       done = done + 1;
       d_step { phase == sense -> sense = 1 - sense }
    od
}

active proctype checker() {
    bit  sense = 1;
    bool a0, a1, r0, r1;
    do
    :: done == 2;
       a0 = added[0];
       d_step { a1 = added[1]; assert(a0 && a1); a0 = false; a1 = false };
       r0 = removed[0];
       d_step { r1 = removed[1]; assert(r0 || r1); r0 = false; r1 = false };
       d_step {
          elems[0] = 0; elems[1] = 0; n = 0;
          added[0] = false; added[1] = false; removed[0] = false; removed[1] = false;
          done = 0; phase = sense; sense = 1 - sense
       }
    od
}
