/** The page's totals in a row of cards. */
import { Box, Flex, Typography } from '@strapi/design-system';
import type { Overview } from '../../../../shared/contracts/usage';
import { useMessage } from '../../hooks/useMessage';
import { useFormat } from '../../hooks/useFormat';

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
  const format = useFormat();
  return (
    <Flex gap={4} wrap="wrap" alignItems="stretch">
      <Stat label={t('stats.images')} value={format.number(totals.images)} testId="image-api-total-images" />
      <Stat label={t('stats.storage')} value={format.size(totals.storageBytes)} testId="image-api-total-storage" />
      <Stat label={t('stats.views')} value={format.number(totals.views)} testId="image-api-total-views" />
      <Stat label={t('stats.window-uploads', { days: window })} value={format.number(totals.uploadsInWindow)} testId="image-api-window-uploads" />
    </Flex>
  );
}
