/**
 * Files carrying metadata the way phones, cameras and editors write it, assembled byte by byte (no
 * library that the code under test might share a blind spot with): JPEG segments and trailers, PNG
 * chunks, GIF extensions, WebP chunks.
 */
import zlib from 'zlib';
import CRC32 from 'crc-32';

/** Where the pictures were taken, as text: what must never be found in a stored file. */
export const GPS_TEXT = 'GPS 48.8582N 2.2945E';

/** An XMP packet as Adobe's tools write it, with a GPS position and a creator. */
export const xmpPacket = (extra = '') =>
  Buffer.from(
    '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>' +
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
      '<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
      `exif:GPSLatitude="48,51.494N" exif:GPSLongitude="2,17.670E" dc:creator="Jane Doe">${extra}</rdf:Description>` +
      '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>',
    'utf8'
  );

// ---------------------------------------------------------------- JPEG

/** A JPEG segment: FF, marker, 16-bit length (counting itself), payload. */
export function jpegSegment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** `jpeg` with `segments` right after SOI. */
export const withJpegSegments = (jpeg: Buffer, ...segments: Buffer[]) => Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);

/** APP1 with XMP. */
export const xmpApp1 = (packet = xmpPacket()) => jpegSegment(0xe1, Buffer.concat([Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1'), packet]));

/** APP13: Photoshop's image resources, where IPTC lives (a by-line resource). */
export const iptcApp13 = () =>
  jpegSegment(0xed, Buffer.concat([Buffer.from('Photoshop 3.0\x008BIM\x04\x04\0\0\0\0\0\x0e\x1c\x02\x50\0\x08Jane Doe\0', 'latin1')]));

/** A COM segment. */
export const jpegComment = (text: string) => jpegSegment(0xfe, Buffer.from(text, 'latin1'));

/** APP2 MPF: the index of an MPO's further pictures. */
export const mpfApp2 = () => jpegSegment(0xe2, Buffer.from('MPF\0MM\0\x2a\0\0\0\x08', 'latin1'));

/** A motion photo's video after EOI, as Google and Samsung phones append it: an MP4 with a GPS atom. */
export const motionPhotoVideo = () =>
  Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from(`ftypmp42\0\0\0\0isommp42\0\0\0\x20udta\xa9xyz+48.8582+002.2945/ ${GPS_TEXT}`, 'latin1')]);

// ---------------------------------------------------------------- PNG

export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeInt32BE(CRC32.buf(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** `png` with `chunks` right after IHDR (8 + 25 bytes). */
export const withPngChunks = (png: Buffer, ...chunks: Buffer[]) => Buffer.concat([png.subarray(0, 33), ...chunks, png.subarray(33)]);

/** The chunks of a PNG: type and whole chunk bytes, read here (not by the code under test). */
export function pngChunkList(png: Buffer): Array<{ type: string; bytes: Buffer }> {
  const found: Array<{ type: string; bytes: Buffer }> = [];
  for (let at = 8; at + 12 <= png.length; ) {
    const end = at + 12 + png.readUInt32BE(at);
    found.push({ type: png.toString('latin1', at + 4, at + 8), bytes: png.subarray(at, end) });
    at = end;
  }
  return found;
}

export const tEXt = (keyword: string, text: string) => pngChunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1'));

/** ImageMagick's way of keeping EXIF in a PNG: a zTXt "Raw profile type exif", the profile as hex. */
export function rawProfileExif(exif: Buffer): Buffer {
  const hex = exif.toString('hex').replace(/(.{72})/g, '$1\n');
  const text = `\nexif\n${String(exif.length).padStart(8)}\n${hex}\n`;
  return pngChunk('zTXt', Buffer.concat([Buffer.from('Raw profile type exif\0\0', 'latin1'), zlib.deflateSync(text)]));
}

/** A bare TIFF-structured EXIF block with an ASCII GPS tag (GPSAreaInformation-like text) and an artist. */
export function tiffWithText(artist: string, gpsText: string): Buffer {
  // Big-endian TIFF, IFD0 at 8 with one entry (Artist, ASCII), its value after the IFD.
  const value = Buffer.from(`${artist} ${gpsText}\0`, 'latin1');
  const tiff = Buffer.alloc(8 + 2 + 12 + 4);
  tiff.write('MM\0\x2a', 0, 'latin1');
  tiff.writeUInt32BE(8, 4);
  tiff.writeUInt16BE(1, 8);
  tiff.writeUInt16BE(0x013b, 10);
  tiff.writeUInt16BE(2, 12);
  tiff.writeUInt32BE(value.length, 14);
  tiff.writeUInt32BE(tiff.length, 18);
  return Buffer.concat([tiff, value]);
}

// ---------------------------------------------------------------- GIF

/** Data sub-blocks of at most 255 bytes, then the terminator. */
export function subBlocks(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length; at += 255) {
    const part = data.subarray(at, at + 255);
    parts.push(Buffer.from([part.length]), part);
  }
  return Buffer.concat([...parts, Buffer.from([0])]);
}

export const gifComment = (text: string) => Buffer.concat([Buffer.from([0x21, 0xfe]), subBlocks(Buffer.from(text, 'latin1'))]);

/** XMP in a GIF as Adobe writes it: the packet raw, then the 258-byte "magic trailer" that ends any sub-block walk. */
export function gifXmp(packet = xmpPacket()): Buffer {
  const magic = Buffer.alloc(258);
  magic[0] = 0x01;
  for (let i = 0; i < 256; i++) magic[1 + i] = 0xff - i;
  magic[257] = 0;
  return Buffer.concat([Buffer.from([0x21, 0xff, 11]), Buffer.from('XMP DataXMP', 'latin1'), packet, magic]);
}

/** `gif` with `blocks` right after its header and global colour table. */
export function withGifBlocks(gif: Buffer, ...blocks: Buffer[]): Buffer {
  const at = 13 + (gif[10] & 0x80 ? 3 * 2 ** ((gif[10] & 0x07) + 1) : 0);
  return Buffer.concat([gif.subarray(0, at), ...blocks, gif.subarray(at)]);
}

// ---------------------------------------------------------------- WebP

export function riffChunk(type: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(type, 0, 'latin1');
  head.writeUInt32LE(payload.length, 4);
  return Buffer.concat([head, payload, payload.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** A RIFF WEBP file of `chunks` (whole chunks), its size field right. */
export function riffWebp(...chunks: Buffer[]): Buffer {
  const body = Buffer.concat(chunks);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(body.length + 4, 4);
  head.write('WEBP', 8, 'latin1');
  return Buffer.concat([head, body]);
}

/** The top-level chunks of a WebP: fourcc and whole chunk bytes (padding included), read here. */
export function webpChunkList(file: Buffer): Array<{ type: string; bytes: Buffer }> {
  const found: Array<{ type: string; bytes: Buffer }> = [];
  for (let at = 12; at + 8 <= file.length; ) {
    const size = file.readUInt32LE(at + 4);
    const end = Math.min(file.length, at + 8 + size + (size & 1));
    found.push({ type: file.toString('latin1', at, at + 4), bytes: file.subarray(at, end) });
    at = end;
  }
  return found;
}

/** The VP8X chunk of a still image: flags, canvas width and height (24 bits each, minus one). */
export function vp8x(flags: number, width: number, height: number): Buffer {
  const payload = Buffer.alloc(10);
  payload[0] = flags;
  payload.writeUIntLE(width - 1, 4, 3);
  payload.writeUIntLE(height - 1, 7, 3);
  return riffChunk('VP8X', payload);
}

/** Whether `haystack` holds `needle` (a string as latin1, or bytes). */
export const holds = (haystack: Buffer, needle: string | Buffer) => haystack.includes(typeof needle === 'string' ? Buffer.from(needle, 'latin1') : needle);
