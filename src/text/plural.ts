/**
 * A count and its noun, `1 batch` / `2 batches`: every count the CLI prints goes through here, so
 * no line says `1 problems`. The plural is English's regular one unless given.
 */
export function plural(n: number, one: string, many: string = pluralOf(one)): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `batch` → `batches`, `entry` → `entries`, `power cut` → `power cuts`. */
export function pluralOf(noun: string): string {
  if (/(s|x|z|ch|sh)$/.test(noun)) return `${noun}es`;
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}
