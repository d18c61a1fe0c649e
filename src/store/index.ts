// The store's public surface, for code outside src/store.
export { openDatabase, type Database, type Db, type OpenDatabaseOptions, type Schema } from './database.js';
export { createEventStore, type EventStore } from './event-store.js';
export * from './events.js';
export * from './errors.js';
export * from './queries/index.js';
export type {
  AppRow,
  EventRow,
  InstanceRow,
  MembershipRow,
  OrgRow,
  PatRow,
  ProjectRow,
  U2fRow,
  UserRow,
} from './schema.js';
