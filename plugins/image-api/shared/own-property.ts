/**
 * Lookups by a name that came from outside (a URL, a parameter, a file name, a configuration key):
 * own entries only. A plain object answers `__proto__`, `constructor` or `toString` through its
 * prototype; here they name nothing, as any other unknown name.
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined;
}
