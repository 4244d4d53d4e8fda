// The processes the end-to-end test starts, and how it ends them all.
//
// Every process the test starts inherits WEFT_E2E_RUN=<tag> from its
// environment (the tag is set on this process first). At the end, the
// test sends SIGTERM, then SIGKILL, by PID, to every process that is a
// descendant of this one or of a process it started, and to every process
// carrying its tag: code-server's file watcher and extension host, the
// language server and Chromium's helpers, even those that outlived their
// parent and were re-parented. Linux only (it reads /proc).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

const TAG_VAR = 'WEFT_E2E_RUN';

/** The processes of the machine: pid → {ppid, state}. */
function processTable() {
  const table = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …; comm may hold spaces and parentheses.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.set(Number(name), { state: rest[0], ppid: Number(rest[1]) });
  }
  return table;
}

function hasTag(pid, needle) {
  try {
    return readFileSync(`/proc/${pid}/environ`).includes(needle);
  } catch {
    return false;
  }
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

export class Procs {
  constructor() {
    this.tag = `${process.pid}-${randomBytes(6).toString('hex')}`;
    process.env[TAG_VAR] = this.tag;
    /** PIDs of the processes started directly. */
    this.roots = new Set();
    this.killed = 0;
  }

  /** Starts a process in its own process group, tracked. */
  spawn(cmd, args, opts = {}) {
    const child = spawn(cmd, args, { ...opts, detached: true });
    if (child.pid) {
      const pid = child.pid;
      this.roots.add(pid);
      // A dead PID may be reused by a process that is none of ours; its
      // orphaned descendants still carry the tag.
      child.on('exit', () => this.roots.delete(pid));
    }
    return child;
  }

  /**
   * Runs a command to its end; resolves {code, signal, out} (stdout and
   * stderr interleaved, also teed to `tee` if given). Rejects, after killing
   * its process tree, when it exceeds timeoutMs.
   */
  run(cmd, args, { timeoutMs = 600_000, tee, ...opts } = {}) {
    return new Promise((resolve, reject) => {
      const child = this.spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      const take = (d) => {
        out += d;
        tee?.(d);
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      const timer = setTimeout(() => {
        this.killTree(child.pid).finally(() =>
          reject(new Error(`${cmd} ${args.join(' ')} took more than ${timeoutMs / 1000} s; killed\n${out.slice(-4000)}`)));
      }, timeoutMs);
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`cannot run ${cmd}: ${err.message}`));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, out });
      });
    });
  }

  /** The live (not zombie) processes to end: descendants of ours and tagged ones. */
  targets(roots) {
    const table = processTable();
    const children = new Map();
    for (const [pid, p] of table) {
      if (!children.has(p.ppid)) children.set(p.ppid, []);
      children.get(p.ppid).push(pid);
    }
    const found = new Set();
    const queue = [...roots].filter((pid) => table.has(pid));
    while (queue.length) {
      const pid = queue.pop();
      if (found.has(pid)) continue;
      found.add(pid);
      queue.push(...(children.get(pid) ?? []));
    }
    if (roots.has(process.pid)) {
      const needle = Buffer.from(`${TAG_VAR}=${this.tag}\0`);
      for (const pid of table.keys()) if (hasTag(pid, needle)) found.add(pid);
    }
    found.delete(process.pid);
    return [...found].filter((pid) => table.get(pid)?.state !== 'Z');
  }

  /** Ends one process tree (SIGTERM, then SIGKILL after graceMs). */
  async killTree(pid, graceMs = 3000) {
    await this.end(new Set([pid]), graceMs);
  }

  /** Ends everything this test started. Returns how many processes it signalled. */
  async killAll(graceMs = 3000) {
    return this.end(new Set([process.pid, ...this.roots]), graceMs);
  }

  async end(roots, graceMs) {
    const signalled = new Set();
    const signal = (pids, sig) => {
      for (const pid of pids) {
        try {
          process.kill(pid, sig);
          signalled.add(pid);
        } catch {
          // already gone
        }
      }
    };
    // Stop the trees first so that none forks or re-parents while we look.
    let pids = this.targets(roots);
    signal(pids, 'SIGSTOP');
    pids = [...new Set([...pids, ...this.targets(roots)])];
    signal(pids, 'SIGTERM');
    signal(pids, 'SIGCONT');
    const deadline = Date.now() + graceMs;
    for (;;) {
      const left = this.targets(new Set([...roots, ...pids]));
      if (left.length === 0) break;
      if (Date.now() > deadline) {
        signal(left, 'SIGKILL');
        await sleep(200);
        const still = this.targets(new Set([...roots, ...pids]));
        if (still.length) {
          throw new Error(`processes ${still.join(', ')} survived SIGKILL`);
        }
        break;
      }
      pids = [...new Set([...pids, ...left])];
      await sleep(100);
    }
    this.killed += signalled.size;
    return signalled.size;
  }
}
