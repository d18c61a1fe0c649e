// oidc-provider 9 ships no type declarations; Keyhold uses it through the few
// names below (configuration.ts, extensions.ts, mount.ts, interactions.ts).
declare module 'oidc-provider' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Any = any;
  const Provider: Any;
  export default Provider;
  export const errors: Any;
  export const interactionPolicy: Any;
}
