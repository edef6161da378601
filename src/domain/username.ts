/**
 * Usernames are unique without regard to case or Unicode compatibility forms: "root", "Root",
 * "ROOT" and fullwidth "ｒｏｏｔ" are one name. The key is what the store indexes as unique and
 * what a login is looked up by; the name as first registered (NFKC-normalised) is what is shown.
 */
export function usernameDisplayForm(username: string): string {
  return username.normalize('NFKC');
}

/** NFKC, lower-cased, NFKC again (lower-casing can leave a string that is no longer normalised). */
export function usernameKey(username: string): string {
  return username.normalize('NFKC').toLowerCase().normalize('NFKC');
}
