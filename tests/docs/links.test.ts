/**
 * The README is the front door to docs/: it links every page, and no relative link in the README,
 * the plugin's README or a docs page points at a file that is not there.
 */
import fs from 'fs';
import path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const DOCS = path.join(ROOT, 'docs');
const pages = fs.readdirSync(DOCS).filter((name) => name.endsWith('.md'));
const markdown = ['README.md', 'plugins/image-api/README.md', ...pages.map((name) => `docs/${name}`)];

/** Relative link targets of a Markdown file, without their #anchor. */
function links(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]).filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#')).map((target) => target.split('#')[0]);
}

test('the README links every docs page', () => {
  const linked = new Set(links('README.md').map((target) => path.normalize(target)));
  expect(pages.filter((name) => !linked.has(`docs/${name}`))).toEqual([]);
});

test('every relative link resolves to a file', () => {
  const broken = markdown.flatMap((file) =>
    links(file)
      .filter((target) => !fs.existsSync(path.join(ROOT, path.dirname(file), target)))
      .map((target) => `${file} -> ${target}`)
  );
  expect(broken).toEqual([]);
});

test('the README stays a front door (about 250 lines at most)', () => {
  expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
});
