/** The page's totals in a row of cards. */
import { Box, Flex, Typography } from '@strapi/design-system';
import { formatBytes, type Overview } from './types';

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
  return (
    <Flex gap={4} wrap="wrap" alignItems="stretch">
      <Stat label="Images" value={totals.images.toLocaleString()} testId="image-api-total-images" />
      <Stat label="Storage used" value={formatBytes(totals.storageBytes)} testId="image-api-total-storage" />
      <Stat label="Views" value={totals.views.toLocaleString()} testId="image-api-total-views" />
      <Stat label={`Uploads, last ${window} days`} value={totals.uploadsInWindow.toLocaleString()} testId="image-api-window-uploads" />
    </Flex>
  );
}
