/**
 * Values every process of a deployment must agree on (generated secrets, their fingerprints, the
 * demo show's id): the first writer's value wins, and every process reads that one back.
 */
export interface SettingsStore {
  /**
   * Insert-if-absent, one statement: stores `value` under `name` unless a value is stored already.
   * Returns the stored value: `value` for the first writer, the first writer's for every other,
   * however many processes call at the same moment. `name` <= 100 characters, `value` <= 16 KiB.
   */
  settleSetting(name: string, value: string): Promise<string>;
}
