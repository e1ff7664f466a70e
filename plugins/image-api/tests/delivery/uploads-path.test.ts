import { readUploadsPath } from '../../server/src/delivery/uploads-path';

const NAME = 'cat-Ab12Cd34Ef.md.jpg';

test('the plain spelling names the stored file', () => {
  for (const name of [NAME, 'report_0a1b2c3d4e.html', 'thumbnail_x_0a1b2c3d4e.JPG', 'no_extension', 'x_0a1b2c3d4e.c++', "a(1)!'~.txt", 'a..b']) {
    expect([name, readUploadsPath(`/uploads/${name}`)]).toEqual([name, { fileName: name }]);
  }
});

test('every other spelling of a path under /uploads is one, whatever it would resolve to', () => {
  const spellings = [
    `/uploads//${NAME}`, `//uploads/${NAME}`, `/uploads/./${NAME}`, `/./uploads/${NAME}`, `/uploads/x/../${NAME}`, `/img/../uploads/${NAME}`,
    `/api/1/docs/..%2F..%2F..%2Fuploads%2F${NAME}`, `/uploads/%2e/${NAME}`, `/uploads/%2E%2E/uploads/${NAME}`, `/uploads%2F${NAME}`, `/uploads%2f${NAME}`,
    `/uploads%5C${NAME}`, `/uploads\\${NAME}`, `/uploads/%252e/${NAME}`, `/uploads%252F${NAME}`, `/%75ploads/${NAME}`, `/%2575ploads/${NAME}`,
    `/uploads/%63at-Ab12Cd34Ef.md.jpg`, `/uploads/cat-Ab12Cd34Ef%2Emd.jpg`, `/UPLOADS/${NAME}`, `/Uploads/${NAME}`, `/uploads/${NAME}/`, `/uploads/${NAME}/.`,
    `/uploads/${NAME}%00`, `/uploads/.${NAME}`, `/uploads/.gitkeep`, '/uploads', '/uploads/', '/uploads/.', '/uploads/..', '/uploads/%', '/uploads/%zz', '/uploads/../robots.txt',
    '/uploads/caf%C3%A9.jpg', '/uploads/a%20b.jpg',
  ];
  for (const spelling of spellings) expect([spelling, readUploadsPath(spelling)]).toEqual([spelling, 'other-spelling']);
});

test('paths elsewhere are not its business, even when they mention uploads', () => {
  for (const path of ['/', '/admin', '/api/1/upload', '/api/upload/files', '/1/upload', '/uploadsx/a.jpg', '/uploads.jpg', '/my/uploads/a.jpg',
    `/img/_/pr:small/plain/http://img.test/uploads/${NAME}@webp`, `/img/sig/rs:fill:10:10/plain/https%3A%2F%2Fimg.test%2Fuploads%2F${NAME}`, '/%zz', '/robots.txt']) {
    expect([path, readUploadsPath(path)]).toEqual([path, null]);
  }
});
