/**
 * Base-1000 units, at most one decimal: "512 B", "52 KB", "17.4 KB", "3 MB". The image JSON's
 * `size_formatted`, the viewer page and the admin's usage page all write sizes this way.
 */
export function formatSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (unit < units.length - 1 && +value.toFixed(1) >= 1000) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : +value.toFixed(1)} ${units[unit]}`;
}
