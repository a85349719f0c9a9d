/*
 * The course's hooks in the log's running paths: a reader's `writeVarint` checked against every
 * appended batch (varint-policy.ts) and a reader's `lookup` answering index lookups, checked
 * (lookup-policy.ts). A part loaded through door-policies.ts only where a reader's function is
 * plugged in: `OffsetIndex.open` with a lookup, and a log's open (`dir.log()`) with either, so
 * that its appends and its rolls (which open segments inside the log's failure guard) find it
 * loaded. A reader's `recover` runs with the segment's load (load/segment-load.ts), and a
 * reader's retention rule with retention (log/write/log-retention.ts).
 */
export { checkVarints } from "./varint-policy.js";
export { lookupByPolicy } from "./lookup-policy.js";
