/**
 * Ready-made client configurations for a key, filled in with the key and the public URL
 * (docs/clients.md): ShareX's custom uploader (.sxcu), PicGo's / PicList's web-uploader settings,
 * and a curl command. Each sends what the client sends and reads the answer where the client reads it;
 * tests/api/keys/client-configs.test.ts replays each as its client would.
 */
import type { Core } from '@strapi/strapi';
import { getService } from '../get-service';

import type { ClientKind } from '../../../shared/contracts/admin-routes';

export interface ClientConfig {
  /** What to name the downloaded file. */
  filename: string;
  contentType: string;
  body: string;
}

/** A file name made of the key entry's name: letters, digits, dashes. */
const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'image-api';

/** A word for a shell: single-quoted. */
const shellWord = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function clientConfig(kind: ClientKind, { publicUrl, key, name }: { publicUrl: string; key: string; name: string }): ClientConfig {
  const uploadUrl = `${publicUrl}/api/1/upload`;
  const host = new URL(publicUrl).host;
  switch (kind) {
    case 'sharex':
      // ShareX 13+ custom uploader: multipart with the file as `source`, the key as a header, and
      // the URL, thumbnail and deletion link read from the JSON answer.
      return {
        filename: `${slug(name)}.sxcu`,
        contentType: 'application/json; charset=utf-8',
        body: `${JSON.stringify(
          {
            Version: '17.0.0',
            Name: `Image API (${host})`,
            DestinationType: 'ImageUploader',
            RequestMethod: 'POST',
            RequestURL: uploadUrl,
            Headers: { 'X-API-Key': key },
            Body: 'MultipartFormData',
            Arguments: { format: 'json' },
            FileFormName: 'source',
            URL: '{json:image.url}',
            ThumbnailURL: '{json:image.thumb.url}',
            DeletionURL: '{json:image.delete_url}',
            ErrorMessage: '{json:error.message}',
          },
          null,
          2
        )}\n`,
      };
    case 'picgo':
      // PicGo (and PicList) with picgo-plugin-web-uploader: its settings, as picgo's config.json holds them.
      return {
        filename: `${slug(name)}.picgo.json`,
        contentType: 'application/json; charset=utf-8',
        body: `${JSON.stringify(
          {
            picBed: {
              uploader: 'web-uploader',
              current: 'web-uploader',
              'web-uploader': {
                url: uploadUrl,
                paramName: 'source',
                jsonPath: 'image.url',
                customHeader: JSON.stringify({ 'X-API-Key': key }),
                customBody: JSON.stringify({ format: 'json' }),
              },
            },
            picgoPlugins: { 'picgo-plugin-web-uploader': true },
          },
          null,
          2
        )}\n`,
      };
    case 'curl':
      return {
        filename: `${slug(name)}.curl.sh`,
        contentType: 'text/plain; charset=utf-8',
        // On a refusal the API's message goes to stderr and the script exits 1: nothing on stdout that
        // a caller could take for a URL (`url=$(./upload.sh shot.png)`). The status is read from
        // `-w` (the answer's last three characters) rather than with --fail-with-body, which has curl
        // print its own "curl: (22) ... error: 400" line before the API's message; -S keeps curl's
        // line where there is no answer at all (no such file, connection refused).
        body:
          `#!/bin/sh\n# Uploads the file given as the first argument; prints the image's direct URL, or the API's error on stderr (exit 1).\n` +
          `answer=$(curl -sS -w '%{http_code}' -H ${shellWord(`X-API-Key: ${key}`)} -F "source=@$1" -F format=txt ${shellWord(uploadUrl)}) || exit 1\n` +
          `status=\${answer#"\${answer%???}"}\n` +
          `answer=\${answer%???}\n` +
          `case $status in\n` +
          `  2??) echo "$answer" ;;\n` +
          `  *) echo "upload failed: $answer" >&2; exit 1 ;;\n` +
          `esac\n`,
      };
  }
}

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /** The configuration for the key of entry `documentId`; null when its key cannot be revealed. */
  async forEntry(kind: ClientKind, documentId: string): Promise<ClientConfig | null> {
    const key = await getService(strapi, 'api-keys').reveal(documentId);
    if (key === null) return null;
    const entry = await strapi.db.query('plugin::image-api.api-key').findOne({ where: { documentId }, select: ['name'] });
    return clientConfig(kind, { publicUrl: getService(strapi, 'public-url').base(), key, name: entry?.name ?? 'image-api' });
  },
});
