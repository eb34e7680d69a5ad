/** The README's generated configuration section lies between these markers. */
const START = '<!-- config-reference:start -->';
const END = '<!-- config-reference:end -->';

export function configSection(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error('README.md lacks the config-reference markers');
  return readme.slice(start + START.length, end).trim();
}

export function replaceConfigSection(readme: string, table: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error('README.md lacks the config-reference markers');
  return `${readme.slice(0, start + START.length)}\n${table.trim()}\n${readme.slice(end)}`;
}
