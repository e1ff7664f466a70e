/**
 * "Responsive image" side panel on an API image's edit view: the image's preset URLs and a ready
 * `<img srcset>` (shared/contracts/serving.ts), with copy buttons. Presets need no signature, so the
 * snippet works as pasted. Crops follow the focal point set on the file in the Media Library.
 */
import { useEffect, useState } from 'react';
import { Box, Button, Flex, Typography } from '@strapi/design-system';
import { IMAGE_UID } from '../../../shared/identity';
import { presetUrl, srcsetSnippet, type ServingAnswer } from '../../../shared/contracts/serving';
import { useImageApi } from '../api';
import { useMessage } from '../hooks/useMessage';
import { useCopy } from '../hooks/useCopy';

interface PanelProps {
  model: string;
  document?: { title?: string | null; original_filename?: string | null; file?: { url?: string; width?: number; height?: number } | null } | null;
}

/** A stored file's URL as the API hands it out (the local provider records a path). */
const absolute = (url: string) => (/^https?:\/\//i.test(url) ? url : `${window.location.origin}${url}`);

function ServingUrls({ url, width, height, alt }: { url: string; width: number; height: number; alt: string }) {
  const api = useImageApi();
  const t = useMessage();
  const copy = useCopy();
  const [serving, setServing] = useState<ServingAnswer | null>(null);
  useEffect(() => {
    api.serving().then(setServing, () => setServing({ transformBase: null, presets: [] }));
  }, [api]);
  if (!serving) return <Typography>…</Typography>;
  const snippet = srcsetSnippet(serving, { url, width, height, alt });
  if (!serving.transformBase || !snippet) return <Typography textColor="neutral600">{t('serving.off')}</Typography>;
  const base = serving.transformBase;
  return (
    <Flex direction="column" alignItems="stretch" gap={2} width="100%">
      {serving.presets.map((preset) => (
        <Flex key={preset.name} justifyContent="space-between" gap={2}>
          <a href={presetUrl(base, preset.name, url)} target="_blank" rel="noreferrer" data-testid="image-api-preset-url">
            <Typography variant="pi">{preset.name}</Typography>
          </a>
          <Button variant="tertiary" size="S" onClick={() => copy(presetUrl(base, preset.name, url))}>
            {t('serving.copy-url')}
          </Button>
        </Flex>
      ))}
      <Box padding={2} background="neutral100" hasRadius>
        <Typography variant="pi" data-testid="image-api-srcset" style={{ fontFamily: 'monospace', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
          {snippet}
        </Typography>
      </Box>
      <Button onClick={() => copy(snippet)}>{t('serving.copy-srcset')}</Button>
      <Typography variant="pi" textColor="neutral600">
        {t('serving.hint')}
      </Typography>
    </Flex>
  );
}

// Called by the Content Manager as a hook, on every entry: the hook comes before the type check.
export const ServingPanel = ({ model, document }: PanelProps) => {
  const t = useMessage();
  if (model !== IMAGE_UID) return null;
  const file = document?.file;
  return {
    title: t('serving.title'),
    content:
      file?.url && file.width && file.height ? (
        <ServingUrls url={absolute(file.url)} width={file.width} height={file.height} alt={document?.title ?? document?.original_filename ?? ''} />
      ) : (
        <Typography variant="pi" textColor="neutral600">
          {t('serving.no-file')}
        </Typography>
      ),
  };
};
