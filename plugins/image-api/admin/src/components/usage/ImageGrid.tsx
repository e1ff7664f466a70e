/** Images as thumbnail cards: title, views, key (for those who may see keys), expiry, and delete. */
import { Box, Button, Flex, Grid, Typography } from '@strapi/design-system';
import type { ImageCard } from '../../../../shared/contracts/usage';
import { srcsetSnippet, type ServingAnswer } from '../../../../shared/contracts/serving';
import { useCopy } from '../../hooks/useCopy';
import { useMessage } from '../../hooks/useMessage';
import { imageLabel } from './labels';
import { useFormat } from '../../hooks/useFormat';
import { placeholderStyle } from './placeholder-style';
import { ConfirmButton } from '../ConfirmButton';

interface Props {
  images: ImageCard[];
  serving: ServingAnswer;
  label: string;
  /** What the section says when it has no image. */
  empty: string;
  /** Deletes the image, once the admin confirmed it. */
  onDelete?: (image: ImageCard) => Promise<void>;
  testId: string;
}

export function ImageGrid({ images, serving, label, empty, onDelete, testId }: Props) {
  const t = useMessage();
  const format = useFormat();
  const copy = useCopy();
  const snippetOf = (image: ImageCard) =>
    image.url && image.width && image.height ? srcsetSnippet(serving, { url: image.url, width: image.width, height: image.height, alt: imageLabel(image) }) : null;
  return (
    <Box>
      <Typography variant="sigma" textColor="neutral600" tag="h2">
        {label}
      </Typography>
      {images.length === 0 ? (
        <Box paddingTop={3} data-testid={`${testId}-empty`}>
          <Typography textColor="neutral600">{empty}</Typography>
        </Box>
      ) : (
        <Grid.Root gap={4} paddingTop={3} data-testid={testId}>
          {images.map((image) => (
            <Grid.Item key={image.idEncoded} col={3} s={6} xs={12} direction="column" alignItems="stretch">
              <Box background="neutral0" hasRadius shadow="tableShadow" overflow="hidden" data-testid="image-api-image-card">
                <a href={image.viewerUrl} target="_blank" rel="noreferrer">
                  <Box
                    background="neutral100"
                    data-testid="image-api-image-placeholder"
                    style={{ height: 140, display: 'flex', alignItems: 'center', justifyContent: 'center', ...placeholderStyle(image) }}
                  >
                    {image.thumbUrl ? (
                      <img src={image.thumbUrl} alt={imageLabel(image)} style={{ maxHeight: 140, maxWidth: '100%' }} />
                    ) : null}
                  </Box>
                </a>
                <Flex direction="column" alignItems="stretch" gap={1} padding={3}>
                  <Typography fontWeight="semiBold" ellipsis>
                    {imageLabel(image)}
                  </Typography>
                  <Typography variant="pi" textColor="neutral600">
                    {t('images.views', { count: image.views })} · {format.date(image.createdAt)}
                  </Typography>
                  {image.key ? (
                    <Typography variant="pi" textColor="neutral600" data-testid="image-api-image-key">
                      {t('images.key', { name: image.key.name })}
                    </Typography>
                  ) : null}
                  <Typography variant="pi" textColor="neutral600">
                    {t('images.expires', { date: image.expiresAt ? format.date(image.expiresAt) : t('images.never') })}
                  </Typography>
                  <Flex gap={2} paddingTop={2} wrap="wrap">
                    {snippetOf(image) ? (
                      <Button variant="tertiary" size="S" onClick={() => copy(snippetOf(image)!)} data-testid="image-api-copy-srcset">
                        {t('images.copy-srcset')}
                      </Button>
                    ) : null}
                    {onDelete ? (
                      <ConfirmButton
                        size="S"
                        title={t('usage.delete.title')}
                        question={t('usage.delete.confirm', { label: imageLabel(image) })}
                        onConfirm={() => onDelete(image)}
                      >
                        {t('images.delete')}
                      </ConfirmButton>
                    ) : null}
                  </Flex>
                </Flex>
              </Box>
            </Grid.Item>
          ))}
        </Grid.Root>
      )}
    </Box>
  );
}
