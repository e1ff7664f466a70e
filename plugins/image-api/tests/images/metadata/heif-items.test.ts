import sharp from 'sharp';
import { heifMetadataItems } from '../../../server/src/images/metadata/heif-items';
import { PERSONAL_EXIF } from '../../../../../tests/helpers/fixtures';
import { tiffWithText, xmpPacket } from '../../../../../tests/helpers/metadata-fixtures';
import { heic } from '../../../../../tools/support/images/heif';

const still = () => sharp({ create: { width: 16, height: 16, channels: 3, background: '#345' } });

/** An ISO BMFF box: 32-bit size, type, payload. */
function box(type: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, payload]);
}
const fullBox = (type: string, version: number, payload: Buffer) => box(type, Buffer.concat([Buffer.from([version, 0, 0, 0]), payload]));
/** An `infe` of version 2: item 1, no protection, its type, an empty name (and a content type for `mime`). */
const infe = (itemType: string, contentType = '') =>
  fullBox('infe', 2, Buffer.concat([Buffer.from([0, 1, 0, 0]), Buffer.from(itemType, 'latin1'), Buffer.from(`\0${contentType ? `${contentType}\0` : ''}`, 'latin1')]));
const heifWith = (...entries: Buffer[]) =>
  Buffer.concat([box('ftyp', Buffer.from('avif\0\0\0\0avifmif1', 'latin1')), fullBox('meta', 0, fullBox('iinf', 0, Buffer.concat([Buffer.from([0, entries.length & 0xff]), ...entries])))]);

describe('heifMetadataItems: what the meta box declares', () => {
  test('an AVIF from sharp: none; with EXIF and XMP: both', async () => {
    expect(heifMetadataItems(await still().avif().toBuffer())).toEqual([]);
    const dressed = await still().avif().withExif(PERSONAL_EXIF).withXmp(xmpPacket().toString('utf8')).toBuffer();
    expect(heifMetadataItems(dressed).sort()).toEqual(['Exif item', 'XMP item']);
  });

  test('a HEIC as phones write it, with EXIF', async () => {
    expect(heifMetadataItems(await heic({ width: 64, height: 64 }))).toEqual([]);
    expect(heifMetadataItems(await heic({ width: 64, height: 64, exif: tiffWithText('Jane Doe', 'GPS') }))).toEqual(['Exif item']);
  });

  test('item entries by hand: Exif, XMP, other MIME content; versions 0/1 name no type', () => {
    expect(heifMetadataItems(heifWith(infe('av01'), infe('mime', 'application/rdf+xml'), infe('Exif')))).toEqual(['XMP item', 'Exif item']);
    expect(heifMetadataItems(heifWith(infe('mime', 'text/plain')))).toEqual(['MIME item']);
    expect(heifMetadataItems(heifWith(fullBox('infe', 0, Buffer.from('\0\x01\0\0Exif\0', 'latin1'))))).toEqual([]);
  });

  test('hostile boxes: cut short, lying sizes, a content type without its NUL, 500,000 entries; bounded, never a throw', () => {
    const whole = heifWith(infe('Exif'));
    for (let cut = 0; cut < whole.length; cut++) expect(() => heifMetadataItems(whole.subarray(0, cut))).not.toThrow();
    const lying = Buffer.from(whole);
    lying.writeUInt32BE(0xffffffff, 24);
    expect(heifMetadataItems(lying)).toEqual([]);
    const large = Buffer.from(whole);
    large.writeUInt32BE(1, 0);
    expect(heifMetadataItems(large)).toEqual([]);
    const noNul = heifWith(fullBox('infe', 2, Buffer.concat([Buffer.from([0, 1, 0, 0]), Buffer.from('mime', 'latin1'), Buffer.alloc(100_000, 0x41)])));
    expect(heifMetadataItems(noNul)).toEqual(['MIME item']);
    const many = heifWith(Buffer.concat(Array(500_000).fill(infe('mime', 'x'))));
    let found: string[] = [];
    found = heifMetadataItems(many);
    expect(found).toEqual(['MIME item']);
  });
});
