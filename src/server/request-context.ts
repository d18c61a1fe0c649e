// One AsyncLocalStorage for everything Keyhold carries along a request (the
// provider request's reads, the client-secret transport, a save's expected
// state, …): each concern gets a slot with AsyncLocalStorage's own run and
// getStore, and all slots share this one storage.
//
// Why one: on Node 20 every enabled AsyncLocalStorage copies its value onto
// every promise the process makes (async_hooks' init hook loops over them), and
// each copy adds a property to the promise. Seven storages (six of Keyhold's
// and the provider's own) took a promise-heavy loop twice the time of one; the CPU
// profile of introspection at c=16 showed the hook's frames at ~6% of the
// server's main thread. A slot's run copies the few slots set around it into
// a new object instead, once per run.
import { AsyncLocalStorage } from 'node:async_hooks';

type Slots = Readonly<Record<symbol, unknown>>;

const context = new AsyncLocalStorage<Slots>();

export interface ContextSlot<T> {
  /** Runs `fn` with this slot set to `value` (the other slots as they are around it). */
  run<R>(value: T, fn: () => R): R;
  /** The value the innermost run of this slot set, or undefined outside one. */
  getStore(): T | undefined;
}

/** A slot of the request context, named for debugging. */
export function contextSlot<T>(name: string): ContextSlot<T> {
  const key = Symbol(name);
  return {
    run: (value, fn) => context.run({ ...context.getStore(), [key]: value }, fn),
    getStore: () => context.getStore()?.[key] as T | undefined,
  };
}
