// Reads the central directory of a zip archive (a .vsix is one) and lists
// its entries with their Unix modes, so the packaging can check that the
// bundled server is stored executable. Handles the archives vsce writes
// (no zip64, no multi-disk); throws on anything it cannot read.
import { readFileSync } from 'node:fs';

/**
 * @param {string} path a zip archive
 * @returns {{name: string, size: number, mode: number | null}[]} each entry:
 *   its name, its uncompressed size and, when the archive records one (made on
 *   Unix), its Unix mode (type and permission bits), else null.
 */
export function zipEntries(path) {
  const buf = readFileSync(path);
  // The end-of-central-directory record: 22 bytes plus a comment of at most 64 KiB.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${path}: not a zip archive (no end of central directory)`);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let n = 0; n < count; n++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== 0x02014b50) {
      throw new Error(`${path}: central directory entry ${n} is damaged`);
    }
    const madeBy = buf.readUInt16LE(p + 4) >> 8; // host system: 3 is Unix
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const attrs = buf.readUInt32LE(p + 38);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    const mode = madeBy === 3 ? attrs >>> 16 : null;
    entries.push({ name, size, mode: mode === 0 ? null : mode });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}
