// The name a person is shown by: the display name they chose, else their
// given and family names. Tokens carry it as `name`; mails greet by it, falling
// back to the username so that no greeting is empty.

export interface NamedPerson {
  username: string;
  displayName?: string | null;
  givenName?: string | null;
  familyName?: string | null;
}

/** The display name, else given and family name joined; undefined when the person has neither. */
export function personalName(person: Omit<NamedPerson, 'username'>): string | undefined {
  return person.displayName || [person.givenName, person.familyName].filter(Boolean).join(' ') || undefined;
}

/** The name a mail greets: the personal name, else the username. */
export function greetingName(person: NamedPerson): string {
  return personalName(person) ?? person.username;
}
