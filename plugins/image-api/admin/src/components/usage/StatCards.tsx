/** The page's totals in a row of cards. */
import { Box, Flex, Typography } from '@strapi/design-system';
import { formatSize } from '../../../../shared/format-size';
import type { Overview } from '../../../../shared/contracts/usage';
import { useMessage } from '../../hooks/useMessage';

function Stat({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Box background="neutral0" hasRadius shadow="tableShadow" padding={5} style={{ flex: '1 1 160px' }}>
      <Typography variant="sigma" textColor="neutral600">
        {label}
      </Typography>
      <Box paddingTop={2}>
        <Typography variant="alpha" data-testid={testId}>
          {value}
        </Typography>
      </Box>
    </Box>
  );
}

export function StatCards({ totals, window }: { totals: Overview['totals']; window: number }) {
  const t = useMessage();
  return (
    <Flex gap={4} wrap="wrap" alignItems="stretch">
      <Stat label={t('stats.images')} value={totals.images.toLocaleString()} testId="image-api-total-images" />
      <Stat label={t('stats.storage')} value={formatSize(totals.storageBytes)} testId="image-api-total-storage" />
      <Stat label={t('stats.views')} value={totals.views.toLocaleString()} testId="image-api-total-views" />
      <Stat label={t('stats.window-uploads', { days: window })} value={totals.uploadsInWindow.toLocaleString()} testId="image-api-window-uploads" />
    </Flex>
  );
}
