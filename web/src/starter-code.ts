/**
 * What "Your code" starts with, as the course's exercise does: the signature, the helpers and a
 * body that returns a wrong value, for the reader to fill in. pagelog's own answer is on the page
 * too, but only behind a button ("Show pagelog's answer"): the exercise is the point.
 */

export const STARTER = `// Chapter 4, "Write it": after a power cut, how many bytes at the start of \`log\`
// are whole, valid record batches? The log keeps those bytes and cuts the rest.
//
// A batch at \`pos\`: bytes pos..pos+7 are its base offset, pos+8..pos+11 its length
// (an int32: the bytes after those 12), so it ends at pos + 12 + length.
// Byte pos+16 is its magic (2); a batch's length is at least 49.
//
//   helpers.readInt32(log, pos)     the big-endian int32 at pos
//   helpers.crcMatches(start, end)  true when the batch in start..end has a good CRC
//
// "Run the log on my code", then cut the power and restart: keeping every byte,
// as this does, keeps a torn batch, and the log cannot read it.
function recover(log, helpers) {
  return log.length;
}
`;

/** pagelog's own recover (src/course/kafka-policies.ts), as a reader would write it here. */
export const ANSWER = `// pagelog's answer: walk the batches from 0 and stop at the first that is short,
// too small, not magic 2, or fails its CRC.
function recover(log, { readInt32, crcMatches }) {
  let pos = 0;
  while (log.length - pos >= 17) {
    const length = readInt32(log, pos + 8);
    if (length < 49 || pos + 12 + length > log.length || log[pos + 16] !== 2) break;
    if (!crcMatches(pos, pos + 12 + length)) break;
    pos += 12 + length;
  }
  return pos;
}
`;
