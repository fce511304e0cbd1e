// Random chunking for property tests: where to cut a text or a byte stream, from arbitrary numbers.

/** The [start, end) ranges that cut a value of `length` at the given offsets (taken modulo length + 1). */
export function cutRanges(length: number, offsets: readonly number[]): Array<[number, number]> {
  const points = [...new Set(offsets.map((o) => o % (length + 1)))].sort((a, b) => a - b);
  const ranges: Array<[number, number]> = [];
  let from = 0;
  for (const p of points) {
    ranges.push([from, p]);
    from = p;
  }
  ranges.push([from, length]);
  return ranges;
}

/** A string cut at the given offsets. */
export function cutText(text: string, offsets: readonly number[]): string[] {
  return cutRanges(text.length, offsets).map(([a, b]) => text.slice(a, b));
}

/** Bytes cut at the given offsets (possibly inside a UTF-8 character). */
export function cutBytes(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  return cutRanges(bytes.length, offsets).map(([a, b]) => bytes.subarray(a, b));
}
