// Sizes as users write them ('100MB', '1.5GiB', '512k', '4096') and as messages print them ('1.5 MiB').

const UNIT_BYTES: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1000 ** 4,
  tib: 1024 ** 4,
};

/** Parses '100MB', '1.5GiB', '512k' or a bare number of bytes (whole bytes, rounded); null if invalid. */
export function parseByteSize(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!m) return null;
  const unit = UNIT_BYTES[(m[2] ?? '').toLowerCase()];
  if (unit === undefined) return null;
  const bytes = Math.round(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** Formats a byte count for messages: '512 B', '1.5 KiB', '100 MiB', '2 GiB'. */
export function formatByteSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i += 1;
  }
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, '');
  return `${shown} ${units[i] ?? 'B'}`;
}
