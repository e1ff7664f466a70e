/**
 * What a stored image publishes, and how faithfully (docs/security.md, "Metadata privacy"; docs/api.md,
 * "Serving images"): every entry of the corpus (tools/support/images/corpus.js: phones', cameras' and
 * editors' files, each with its truth) is uploaded, and its original, `.md`, `.th` and a
 * transformation are fetched and judged, one test per entry and check, so a failure names both:
 *
 * - upload: 200, the JSON's type, size, md5 and dimensions true to the served files, which are whole;
 * - metadata: nothing that locates or names someone in any file (read by tests/helpers/metadata-scan.ts,
 *   not by the libraries the service uses), nor the corpus's names in clear;
 * - icc: the source's ICC profile stays on the original; variants and transformations are sRGB;
 * - orientation: upright, each quadrant where it belongs; alpha: transparent where the source is;
 * - colour: each quadrant and the centre within 6 of the source's colour in sRGB;
 * - frames: an animation's frames, delays and loop in the original, `.md` and `.th`; width: the same
 *   through an upload's `width`; anim-transform: through f:webp, f:gif and a preset negotiated from a
 *   browser's Accept;
 * - bits: the JSON's `bits` and `channels` are what each file holds;
 * - size: a variant with fewer pixels than the original is not bigger in bytes;
 * - lossless: removing metadata left the coded picture as it was (a BMP: its pixels in the PNG).
 *
 * The last test prints the table (entry | each check | passed/failed) for the closing note.
 */
import crypto from 'crypto';
import sharp from 'sharp';
import { useApp } from '../../helpers/app';
import { binaryParser } from '../../helpers/image-json';
import { signedPath, transformSecrets } from '../../helpers/imgproxy';
import { iccDescription, scanImage, WEBP_FLAG, type ImageScan } from '../../helpers/metadata-scan';
import { corpusCases, corpusEntry, PERSON, type CorpusCase, type CorpusEntry, type Rgb } from '../../../tools/support/images/corpus';

const { key: KEY, salt: SALT } = transformSecrets();
const app = useApp({ IMAGE_API_TRANSFORM_KEY: KEY, IMAGE_API_TRANSFORM_SALT: SALT });

/** Chromium's Accept for images. */
const BROWSER_ACCEPT = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';
const MIME: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif' };
const EXTENSION: Record<string, string> = { jpeg: 'jpg', png: 'png', gif: 'gif', webp: 'webp', avif: 'avif' };
/** Where quadrants and the centre are read, as fractions of any file's sides (a `.th` crop included). */
const POINTS: Array<[number, number]> = [
  [0.12, 0.12],
  [0.88, 0.12],
  [0.12, 0.88],
  [0.88, 0.88],
];
const CENTRE: [number, number] = [0.5, 0.5];
const COLOUR_TOLERANCE = 6;

const CHECKS = ['upload', 'metadata', 'icc', 'orientation', 'alpha', 'colour', 'frames', 'width', 'anim-transform', 'bits', 'size', 'lossless'] as const;
type Check = (typeof CHECKS)[number];

const animated = (c: CorpusCase) => c.truth.frames > 1;
/** GIF and WebP animations go through every path; an APNG's frames are judged in its original and through `width`. */
const animatedGifOrWebp = (c: CorpusCase) => animated(c) && (c.truth.format === 'gif' || c.truth.format === 'webp');

/** Which checks say something about a case. */
function applies(c: CorpusCase, check: Check): boolean {
  const t = c.truth;
  switch (check) {
    case 'upload':
    case 'metadata':
    case 'icc':
    case 'bits':
      return true;
    case 'orientation':
      return t.corners !== null;
    case 'alpha':
      return t.alpha;
    case 'colour':
      return t.colours && t.corners !== null;
    case 'frames':
    case 'width':
      return animated(c);
    case 'anim-transform':
      return animatedGifOrWebp(c);
    case 'size':
      // A `.th` (160×160) or a `.md` (500 wide) with fewer pixels than the picture.
      return t.width * t.height > 160 * 160 || t.width > 500;
    case 'lossless':
      return t.lossless;
  }
}

// ---------------------------------------------------------------------------------------------
// What the service answered for an entry: fetched once, judged by every check.

interface Served {
  /** "original", ".md", ".th", "w:80", "w:80/f:webp", "pr:thumbnail (Accept)", "original (width=32)". */
  label: string;
  kind: 'original' | 'medium' | 'thumb' | 'transformation';
  status: number;
  contentType: string;
  bytes: Buffer;
  scan: ImageScan;
  /** The JSON's description of it (original and variants). */
  json: { width: number; height: number; size: number; bits: number; channels: number } | null;
}

interface Outcome {
  entry: CorpusEntry;
  source: ImageScan;
  status: number;
  image: any;
  /** original, .md, .th, the still transformation. */
  files: Served[];
  /** f:webp, f:gif and the negotiated preset of an animation. */
  animations: Served[];
  /** The original of the upload with `width` (animations). */
  widthUpload: { status: number; image: any; original: Served | null } | null;
}

async function fetchServed(label: string, kind: Served['kind'], path: string, json: Served['json'], headers: Record<string, string> = {}): Promise<Served> {
  let req = app.http.get(path);
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  const res = await req.buffer(true).parse(binaryParser);
  const bytes = res.body as Buffer;
  return { label, kind, status: res.status, contentType: String(res.headers['content-type'] ?? ''), bytes, scan: scanImage(bytes), json };
}

const jsonOf = (variant: any): Served['json'] => ({ width: variant.width, height: variant.height, size: variant.size, bits: variant.bits, channels: variant.channels });
const half = (c: CorpusCase) => Math.round(c.truth.width / 2);
/** A signed transformation of a stored file's URL. */
const transformation = (options: string, url: string) => signedPath(KEY, SALT, `/${options}/plain/${url}`);

async function produce(c: CorpusCase): Promise<Outcome> {
  const entry = await corpusEntry(c.name);
  const res = await app.upload(app.key, entry.bytes, { filename: entry.filename });
  const outcome: Outcome = { entry, source: scanImage(entry.bytes), status: res.status, image: res.body?.image ?? null, files: [], animations: [], widthUpload: null };
  if (res.status !== 200) return outcome;
  const image = res.body.image;
  const stillOptions = `w:${half(c)}`;
  outcome.files = [
    await fetchServed('original', 'original', app.pathOf(image.url), jsonOf(image)),
    await fetchServed('.md', 'medium', app.pathOf(image.medium.url), jsonOf(image.medium)),
    await fetchServed('.th', 'thumb', app.pathOf(image.thumb.url), jsonOf(image.thumb)),
    await fetchServed(stillOptions, 'transformation', transformation(stillOptions, image.url), null),
  ];
  if (animatedGifOrWebp(c)) {
    for (const format of ['webp', 'gif']) {
      const options = `w:${half(c)}/f:${format}`;
      outcome.animations.push(await fetchServed(options, 'transformation', transformation(options, image.url), null));
    }
    // Presets alone need no signature; the format comes from the browser's Accept.
    outcome.animations.push(await fetchServed('pr:thumbnail (Accept)', 'transformation', `/img/insecure/pr:thumbnail/plain/${image.url}`, null, { Accept: BROWSER_ACCEPT }));
  }
  if (animated(c)) {
    const narrow = await app.upload(app.key, entry.bytes, { filename: entry.filename, fields: { width: half(c) } });
    const original = narrow.status === 200 ? await fetchServed(`original (width=${half(c)})`, 'original', app.pathOf(narrow.body.image.url), jsonOf(narrow.body.image)) : null;
    outcome.widthUpload = { status: narrow.status, image: narrow.body?.image ?? null, original };
  }
  return outcome;
}

const outcomes = new Map<string, Promise<Outcome>>();
async function outcomeOf(c: CorpusCase): Promise<Outcome> {
  let outcome = outcomes.get(c.name);
  if (!outcome) {
    outcome = produce(c);
    outcomes.set(c.name, outcome);
  }
  const done = await outcome;
  if (done.status !== 200) throw new Error(`the upload answered ${done.status}: ${JSON.stringify(done.image ?? null)}`);
  return done;
}

// ---------------------------------------------------------------------------------------------
// Reading pixels (sharp decodes; nothing here asks it about metadata).

/**
 * A WebP as browsers show it: libwebp draws an ALPH chunk whatever VP8X's alpha flag says, libvips
 * trusts the flag; the flag is set on a copy so that sharp reads the alpha that is there.
 */
function asBrowsersSeeIt(bytes: Buffer, scan: ImageScan): Buffer {
  if (scan.container !== 'webp' || scan.webpFlags === null || scan.webpFlags & WEBP_FLAG.alpha || scan.channels !== 4) return bytes;
  const copy = Buffer.from(bytes);
  copy[20] |= WEBP_FLAG.alpha;
  return copy;
}

interface Pixels {
  width: number;
  height: number;
  /** RGBA of the first frame, 8 bits, converted to sRGB from the file's ICC profile if it has one. */
  at(fx: number, fy: number): number[];
}

async function pixelsOf(served: { bytes: Buffer; scan: ImageScan }): Promise<Pixels> {
  const { data, info } = await sharp(asBrowsersSeeIt(served.bytes, served.scan)).toColourspace('srgb').ensureAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at(fx, fy) {
      const x = Math.min(info.width - 1, Math.floor(fx * info.width));
      const y = Math.min(info.height - 1, Math.floor(fy * info.height));
      const i = (y * info.width + x) * info.channels;
      return [...data.subarray(i, i + 4)];
    },
  };
}

const distance = (a: Rgb, b: Rgb) => (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2;
const nearest = (colour: Rgb, candidates: Rgb[]) => candidates.reduce((best, candidate, i) => (distance(colour, candidate) < distance(colour, candidates[best]) ? i : best), 0);
const within = (actual: Rgb, expected: Rgb, tolerance: number) => [0, 1, 2].every((i) => Math.abs(actual[i] - expected[i]) <= tolerance);

// ---------------------------------------------------------------------------------------------
// The checks. Each gathers every fault it finds, so one failure lists all the files it concerns.

type Faults = string[];

function checkUpload(o: Outcome, faults: Faults) {
  const t = o.entry.truth;
  const image = o.image;
  if (image.extension !== EXTENSION[t.stored] || image.mime !== MIME[t.stored]) faults.push(`stored as ${image.extension} ${image.mime}, expected ${EXTENSION[t.stored]}`);
  if (image.width !== t.width || image.height !== t.height) faults.push(`JSON says ${image.width}×${image.height}, the picture is ${t.width}×${t.height}`);
  for (const file of [...o.files, ...o.animations]) {
    if (file.status !== 200) faults.push(`${file.label}: status ${file.status}`);
    else if (file.scan.problems.length) faults.push(`${file.label}: malformed ${file.scan.container}: ${file.scan.problems.join('; ')}`);
  }
  const original = o.files[0];
  if (original.bytes.length !== image.size) faults.push(`original: ${original.bytes.length} bytes served, size says ${image.size}`);
  if (crypto.createHash('md5').update(original.bytes).digest('hex') !== image.md5) faults.push('original: md5 is not the served file\'s');
  if (original.scan.width !== t.width || original.scan.height !== t.height) faults.push(`original: the file is ${original.scan.width}×${original.scan.height}`);
  for (const file of o.files.slice(1, 3)) {
    if (file.json && file.bytes.length !== file.json.size) faults.push(`${file.label}: ${file.bytes.length} bytes served, size says ${file.json.size}`);
    if (file.json && (file.scan.width !== file.json.width || file.scan.height !== file.json.height)) faults.push(`${file.label}: the file is ${file.scan.width}×${file.scan.height}, JSON ${file.json.width}×${file.json.height}`);
  }
}

/** Strings the corpus's metadata holds in clear, which no served file may. */
const NAMES = [PERSON.artist, PERSON.make, '48.8584'];

function allFiles(o: Outcome): Served[] {
  return [...o.files, ...o.animations, ...(o.widthUpload?.original ? [o.widthUpload.original] : [])];
}

function checkMetadata(o: Outcome, faults: Faults) {
  for (const file of allFiles(o)) {
    if (file.status !== 200) continue;
    if (file.scan.personal.length) faults.push(`${file.label}: ${file.scan.personal.join(', ')}`);
    const named = NAMES.filter((name) => file.bytes.includes(Buffer.from(name, 'latin1')));
    if (named.length) faults.push(`${file.label}: holds ${named.map((name) => JSON.stringify(name)).join(', ')} in clear`);
  }
}

function checkIcc(o: Outcome, faults: Faults) {
  const [original, ...others] = allFiles(o);
  // A HEIC's profile goes with its pixels into the JPEG or is applied to them: either shows right (colour).
  if (o.entry.truth.icc && o.entry.truth.format === o.entry.truth.stored) {
    if (!original.scan.icc) faults.push('original: its ICC profile is gone');
    else if (!o.source.icc || !original.scan.icc.equals(o.source.icc)) faults.push(`original: another ICC profile (${iccDescription(original.scan.icc)})`);
  }
  for (const file of others) {
    if (file.kind === 'original') continue;
    if (file.scan.icc && !/srgb/i.test(iccDescription(file.scan.icc))) faults.push(`${file.label}: not sRGB (ICC "${iccDescription(file.scan.icc)}")`);
  }
}

async function checkOrientation(o: Outcome, faults: Faults) {
  const t = o.entry.truth;
  const corners = t.corners!;
  for (const file of o.files) {
    if (file.status !== 200) continue;
    const pixels = await pixelsOf(file);
    if (file.kind !== 'thumb' && pixels.width > pixels.height !== t.width > t.height) faults.push(`${file.label}: ${pixels.width}×${pixels.height} is not upright`);
    const seen = POINTS.map(([fx, fy]) => nearest(pixels.at(fx, fy), corners));
    if (seen.join() !== '0,1,2,3') faults.push(`${file.label}: quadrants in the order ${seen.join(',')} (0 top left, 1 top right, 2 bottom left, 3 bottom right)`);
  }
}

async function checkAlpha(o: Outcome, faults: Faults) {
  for (const file of o.files) {
    if (file.status !== 200) continue;
    if (file.scan.container === 'jpeg') {
      faults.push(`${file.label}: a JPEG, its transparency gone`);
      continue;
    }
    const pixels = await pixelsOf(file);
    const centre = pixels.at(...CENTRE)[3];
    const opaque = POINTS.map(([fx, fy]) => pixels.at(fx, fy)[3]);
    if (centre > 8) faults.push(`${file.label}: the transparent centre has alpha ${centre}`);
    if (opaque.some((alpha) => alpha < 247)) faults.push(`${file.label}: opaque quadrants have alpha ${opaque.join(',')}`);
  }
}

async function checkColour(o: Outcome, faults: Faults) {
  const t = o.entry.truth;
  const expected: Array<[[number, number], Rgb]> = POINTS.map((point, i) => [point, t.corners![i]]);
  if (t.centre && !t.alpha) expected.push([CENTRE, t.centre]);
  for (const file of o.files) {
    if (file.status !== 200) continue;
    const pixels = await pixelsOf(file);
    const off = expected
      .map(([[fx, fy], colour]) => ({ colour, seen: pixels.at(fx, fy).slice(0, 3) }))
      .filter(({ colour, seen }) => !within(seen, colour, COLOUR_TOLERANCE));
    if (off.length) faults.push(`${file.label}: ${off.map(({ colour, seen }) => `(${seen.join(',')}) for (${colour.join(',')})`).join(', ')}`);
  }
}

/** Frames, delays and loop of a served file against the source's, in the container it is in. */
function animationFaults(file: Served, o: Outcome): string[] {
  const t = o.entry.truth;
  const found = file.scan.animation;
  const faults: string[] = [];
  if (found.frames !== t.frames) return [`${file.label}: ${found.frames} frame(s) of ${t.frames}`];
  if (found.delaysMs.join() !== t.delaysMs!.join()) faults.push(`${file.label}: delays ${found.delaysMs.join(',')} ms, expected ${t.delaysMs!.join(',')}`);
  // A loop count other than "for ever" is compared in the source's own container: GIF counts repeats.
  const sameContainer = file.scan.container === t.format;
  if ((t.loop === 0 || sameContainer) && found.loop !== t.loop) faults.push(`${file.label}: loop ${found.loop}, expected ${t.loop}`);
  return faults;
}

function checkFrames(o: Outcome, faults: Faults) {
  // An APNG's `.md` and `.th` are not held to its frames (the rule names GIF and WebP).
  const files = animatedGifOrWebp(o.entry) ? o.files.slice(0, 3) : o.files.slice(0, 1);
  for (const file of files) if (file.status === 200) faults.push(...animationFaults(file, o));
}

function checkWidth(o: Outcome, faults: Faults) {
  const narrow = o.widthUpload!;
  if (narrow.status !== 200 || !narrow.original) {
    faults.push(`the upload with width=${half(o.entry)} answered ${narrow.status}`);
    return;
  }
  // An APNG keeps its frames, so its width too (docs/api.md, `width`): libvips reads only its first frame.
  const expected = o.entry.truth.format === 'png' ? o.entry.truth.width : half(o.entry);
  if (narrow.image.width !== expected) faults.push(`width=${half(o.entry)}: the JSON says ${narrow.image.width} wide`);
  if (narrow.original.scan.width !== expected) faults.push(`width=${half(o.entry)}: the file is ${narrow.original.scan.width} wide`);
  faults.push(...animationFaults(narrow.original, o));
}

function checkAnimTransform(o: Outcome, faults: Faults) {
  const [webp, gif, negotiated] = o.animations;
  // The still options name no format: the source's own, which carries the animation.
  const unformatted = o.files[3];
  for (const [file, container] of [[unformatted, o.entry.truth.format], [webp, 'webp'], [gif, 'gif']] as const) {
    if (file.status !== 200) continue;
    if (file.scan.container !== container) faults.push(`${file.label}: a ${file.scan.container}`);
    faults.push(...animationFaults(file, o));
  }
  if (negotiated.status === 200) {
    if (!['image/webp', 'image/gif'].includes(negotiated.contentType)) faults.push(`${negotiated.label}: ${negotiated.contentType}, a still format for an animation`);
    else if (negotiated.scan.animation.frames !== o.entry.truth.frames) faults.push(`${negotiated.label}: ${negotiated.scan.animation.frames} frame(s) of ${o.entry.truth.frames}`);
  }
}

function checkBits(o: Outcome, faults: Faults) {
  for (const file of [...o.files.slice(0, 3), ...(o.widthUpload?.original ? [o.widthUpload.original] : [])]) {
    if (file.status !== 200 || !file.json) continue;
    const { bits, channels } = file.json;
    if (bits !== file.scan.bits || channels !== file.scan.channels) {
      faults.push(`${file.label}: JSON bits ${bits} channels ${channels}, the file holds ${file.scan.bits} bits × ${file.scan.channels} channels`);
    }
  }
}

function checkSize(o: Outcome, faults: Faults) {
  const [original, ...variants] = o.files.slice(0, 3);
  const pixels = (scan: ImageScan) => scan.width * scan.height;
  for (const variant of variants) {
    if (variant.status !== 200) continue;
    if (pixels(variant.scan) < pixels(original.scan) && variant.bytes.length > original.bytes.length) {
      faults.push(`${variant.label}: ${variant.bytes.length} bytes for ${variant.scan.width}×${variant.scan.height}, the original ${original.bytes.length} for ${original.scan.width}×${original.scan.height}`);
    }
  }
}

async function checkLossless(o: Outcome, faults: Faults) {
  const original = o.files[0];
  const { entry } = o;
  if (entry.pixels) {
    const { data, info } = await sharp(original.bytes).ensureAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    if (info.width !== entry.pixels.width || info.height !== entry.pixels.height || !data.equals(entry.pixels.data)) faults.push('original: its pixels are not the BMP\'s');
    return;
  }
  if (!original.scan.imageData.equals(o.source.imageData)) faults.push(`original: the coded picture changed (${o.source.imageData.length} bytes coded in the source, ${original.scan.imageData.length} stored)`);
  if (original.bytes.length > entry.bytes.length) faults.push(`original: ${original.bytes.length} bytes, more than the ${entry.bytes.length} sent`);
  if (entry.truth.webpLossless && original.scan.lossless !== true) faults.push('original: no longer lossless (VP8L)');
}

const CHECKERS: Record<Check, (o: Outcome, faults: Faults) => void | Promise<void>> = {
  upload: checkUpload,
  metadata: checkMetadata,
  icc: checkIcc,
  orientation: checkOrientation,
  alpha: checkAlpha,
  colour: checkColour,
  frames: checkFrames,
  width: checkWidth,
  'anim-transform': checkAnimTransform,
  bits: checkBits,
  size: checkSize,
  lossless: checkLossless,
};

// ---------------------------------------------------------------------------------------------

const results = new Map<string, Map<Check, boolean>>();
const rows = corpusCases.flatMap((c) => CHECKS.filter((check) => applies(c, check)).map((check) => [c.name, check] as [string, Check]));

test.each(rows)('%s | %s', async (name, check) => {
  const c = corpusCases.find((candidate) => candidate.name === name)!;
  const recorded = results.get(name) ?? new Map<Check, boolean>();
  results.set(name, recorded);
  recorded.set(check, false);
  const o = await outcomeOf(c);
  const faults: Faults = [];
  await CHECKERS[check](o, faults);
  expect(faults).toEqual([]);
  recorded.set(check, true);
});

/** JPEG segments APPn/COM dropped by hand (for the controls: a strip that keeps the pixels). */
function withoutSegments(jpeg: Buffer, drop: (marker: number, payload: Buffer) => boolean): Buffer {
  const parts = [jpeg.subarray(0, 2)];
  let at = 2;
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff && jpeg[at + 1] !== 0xda) {
    const end = at + 2 + jpeg.readUInt16BE(at + 2);
    if (!drop(jpeg[at + 1], jpeg.subarray(at + 4, end))) parts.push(jpeg.subarray(at, end));
    at = end;
  }
  return Buffer.concat([...parts, jpeg.subarray(at)]);
}

describe('controls: each check finds the fault it is there for (files made here, not by the service)', () => {
  const served = (label: string, kind: Served['kind'], bytes: Buffer, json: Served['json'] = null): Served => ({ label, kind, status: 200, contentType: '', bytes, scan: scanImage(bytes), json });
  async function outcome(name: string, files: Served[], extra: Partial<Outcome> = {}): Promise<Outcome> {
    const entry = await corpusEntry(name);
    return { entry, source: scanImage(entry.bytes), status: 200, image: {}, files, animations: [], widthUpload: null, ...extra };
  }
  const faultsOf = async (check: Check, o: Outcome) => {
    const faults: Faults = [];
    await CHECKERS[check](o, faults);
    return faults;
  };

  test('metadata: every entry that carries some fails as it was sent', async () => {
    for (const c of corpusCases.filter((candidate) => candidate.truth.metadata)) {
      const entry = await corpusEntry(c.name);
      expect([c.name, (await faultsOf('metadata', await outcome(c.name, [served('as sent', 'original', entry.bytes)]))).length > 0]).toEqual([c.name, true]);
    }
  });

  test('orientation: orientation 6\'s pixels as stored, its EXIF dropped', async () => {
    const { bytes } = await corpusEntry('jpeg-orientation-6');
    const unturned = withoutSegments(bytes, (marker) => marker === 0xe1);
    expect(await faultsOf('orientation', await outcome('jpeg-orientation-6', [served('unturned', 'original', unturned)]))).toEqual([
      'unturned: 112×160 is not upright',
      'unturned: quadrants in the order 1,3,0,2 (0 top left, 1 top right, 2 bottom left, 3 bottom right)',
    ]);
  });

  test('colour and icc: a P3 JPEG without its profile', async () => {
    const { bytes } = await corpusEntry('jpeg-p3-gps');
    const bare = withoutSegments(bytes, (marker) => marker === 0xe2);
    const o = await outcome('jpeg-p3-gps', [served('original', 'original', bare)]);
    expect(await faultsOf('icc', o)).toEqual(['original: its ICC profile is gone']);
    expect((await faultsOf('colour', o))[0]).toMatch(/^original: \(19\d,8\d,[67]\d\) for \(205,70,64\)/);
  });

  test('alpha: a WebP whose VP8X denies its alpha, re-encoded by a reader that believed it', async () => {
    const { bytes } = await corpusEntry('webp-alpha-flag-0');
    const flattened = await sharp(bytes).webp({ lossless: true }).toBuffer();
    expect(await faultsOf('alpha', await outcome('webp-alpha-flag-0', [served('flattened', 'original', flattened)]))).toEqual(['flattened: the transparent centre has alpha 255']);
    // The same bytes as sent show their transparency.
    expect(await faultsOf('alpha', await outcome('webp-alpha-flag-0', [served('as sent', 'original', bytes)]))).toEqual([]);
  });

  test('frames, anim-transform: a first frame for an animation; AVIF from Accept', async () => {
    const { bytes } = await corpusEntry('gif-animated-comment-xmp');
    const still = await sharp(bytes).gif().toBuffer();
    const files = [served('original', 'original', bytes), served('.md', 'medium', still), served('.th', 'thumb', bytes), served('w:32', 'transformation', still)];
    const negotiated = { ...served('pr:thumbnail (Accept)', 'transformation', await sharp(bytes).avif().toBuffer()), contentType: 'image/avif' };
    const o = await outcome('gif-animated-comment-xmp', files, { animations: [served('w:32/f:webp', 'transformation', await sharp(bytes, { animated: true }).webp().toBuffer()), served('w:32/f:gif', 'transformation', bytes), negotiated] });
    expect(await faultsOf('frames', o)).toEqual(['.md: 1 frame(s) of 4']);
    expect(await faultsOf('anim-transform', o)).toEqual(['w:32: 1 frame(s) of 4', 'pr:thumbnail (Accept): image/avif, a still format for an animation']);
  });

  test('bits, size, lossless: a palette GIF said to have 4 bits; a bigger variant; a re-encoded JPEG', async () => {
    const gif = (await corpusEntry('gif-transparent')).bytes;
    expect(await faultsOf('bits', await outcome('gif-transparent', [served('original', 'original', gif, { width: 160, height: 112, size: gif.length, bits: 4, channels: 3 })]))).toEqual([
      'original: JSON bits 4 channels 3, the file holds 8 bits × 4 channels',
    ]);
    const palette = (await corpusEntry('png-palette-transparent')).bytes;
    const bigger = await sharp(palette).resize(500).png().toBuffer();
    expect(await faultsOf('size', await outcome('png-palette-transparent', [served('original', 'original', palette), served('.md', 'medium', bigger), served('.th', 'thumb', bigger)]))).toHaveLength(2);
    const { bytes } = await corpusEntry('jpeg-gps-xmp-iptc');
    const reencoded = await sharp(bytes).jpeg({ quality: 95 }).toBuffer();
    expect(await faultsOf('lossless', await outcome('jpeg-gps-xmp-iptc', [served('original', 'original', reencoded)]))).toEqual([
      expect.stringMatching(/^original: the coded picture changed/),
    ]);
    const stripped = withoutSegments(bytes, (marker) => marker >= 0xe0);
    expect(await faultsOf('lossless', await outcome('jpeg-gps-xmp-iptc', [served('original', 'original', stripped)]))).toEqual([]);
  });
});

afterAll(() => {
  const mark = (name: string, check: Check) => {
    const c = corpusCases.find((candidate) => candidate.name === name)!;
    if (!applies(c, check)) return '·';
    const passed = results.get(name)?.get(check);
    return passed === undefined ? '?' : passed ? 'ok' : 'FAIL';
  };
  const lines = [`| entry | ${CHECKS.join(' | ')} | passed/failed |`, `| --- | ${CHECKS.map(() => '---').join(' | ')} | --- |`];
  for (const c of corpusCases) {
    const marks = CHECKS.map((check) => mark(c.name, check));
    lines.push(`| ${c.name} | ${marks.join(' | ')} | ${marks.filter((m) => m === 'ok').length}/${marks.filter((m) => m === 'FAIL').length} |`);
  }
  console.log(`corpus table (ok: passed, FAIL: failed, ·: does not apply)\n${lines.join('\n')}`);
});
