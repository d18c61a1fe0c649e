// What a person recognises a login session by: "Firefox on Linux", not a
// User-Agent of 150 characters. A browser or system no row knows keeps the
// start of its User-Agent, cut short and stripped of every character that is
// not printable ASCII (it is shown on the account page and in the API).

/** The longest description kept. */
export const DEVICE_MAX = 64;

// First match wins: Edge and Opera name Chrome too, Chrome names Safari.
const BROWSERS: readonly (readonly [RegExp, string])[] = [
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrom(e|ium)\/|CriOS\//, 'Chrome'],
  [/Safari\//, 'Safari'],
  [/^curl\//, 'curl'],
];

const SYSTEMS: readonly (readonly [RegExp, string])[] = [
  [/Android/, 'Android'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux|X11/, 'Linux'],
];

const first = (table: readonly (readonly [RegExp, string])[], ua: string) => table.find(([re]) => re.test(ua))?.[1];

/** A short description of the browser that sent `userAgent`; 'Unknown device' when none was sent. */
export function describeDevice(userAgent: string | undefined): string {
  const ua = (userAgent ?? '').slice(0, 1024);
  const browser = first(BROWSERS, ua);
  const system = first(SYSTEMS, ua);
  if (browser && system) return `${browser} on ${system}`;
  if (browser || system) return (browser ?? system)!;
  const printable = ua.replace(/[^\x20-\x7e]/g, '').trim().slice(0, DEVICE_MAX);
  return printable || 'Unknown device';
}
