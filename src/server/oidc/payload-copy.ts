// A copy of a stored payload, for each lookup of the library that is answered
// from a row this request already read (adapter.ts, request-reads.ts): the
// library's models take a payload's objects as their own and change them.
//
// A payload is JSON (a jsonb column, parsed by the driver, plus the numbers
// the store adds), so a walk over plain objects, arrays and primitives copies
// it whole. Why not structuredClone (measured ad hoc): ~10 µs for a grant or a token against
// ~1.5 µs for this walk, two of them at every userinfo and introspection
// (structuredClone was the largest of Keyhold's own frames there, 3% of the
// main thread). A key `__proto__` (a client's `claims` request is stored as it
// came) is defined as an own property, as JSON.parse makes it, never set as
// the copy's prototype.
export function copyPayload<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) out.push(copy(item));
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copy((value as Record<string, unknown>)[key]);
    if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}
