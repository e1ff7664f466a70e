/**
 * Every key with its status, last use and uploads; a key's row opens its own usage chart, a link to
 * its entry and, for admins who may reveal keys, its client configurations.
 */
import { useEffect, useState } from 'react';
import { Badge, Box, Button, Flex, Table, Tbody, Td, Th, Thead, Tr, Typography } from '@strapi/design-system';
import { Link } from 'react-router-dom';
import { atQuota, holdingParts, type DayUsage, type KeySummary } from '../../../../shared/contracts/usage';
import { API_KEY_UID } from '../../../../shared/identity';
import { useImageApi } from '../../api';
import { useClientConfigDownload, useClientFiles } from '../../hooks/useClientConfigDownload';
import { useMessage } from '../../hooks/useMessage';
import { useFormat } from '../../hooks/useFormat';
import { UsageChart } from './UsageChart';

const STATUS_COLOURS = { active: 'success', revoked: 'danger', expired: 'warning' } as const;

function KeyDetail({ summary, days, canReveal }: { summary: KeySummary; days: number; canReveal: boolean }) {
  const api = useImageApi();
  const t = useMessage();
  const download = useClientConfigDownload();
  const clientFiles = useClientFiles();
  const [usage, setUsage] = useState<DayUsage[] | null>(null);
  useEffect(() => {
    api.keyUsage(summary.documentId, days).then(setUsage);
  }, [api, summary.documentId, days]);
  return (
    <Box padding={4} background="neutral100" hasRadius data-testid="image-api-key-detail">
      {usage ? <UsageChart days={usage} label={t('keys.chart', { name: summary.name })} height={200} /> : null}
      <Flex gap={2} wrap="wrap" paddingTop={3}>
        <Button variant="secondary" size="S" tag={Link} to={`/content-manager/collection-types/${API_KEY_UID}/${summary.documentId}`}>
          {t('keys.open-entry')}
        </Button>
        {canReveal
          ? clientFiles.map(({ kind, label }) => (
              <Button key={kind} variant="tertiary" size="S" onClick={() => download(summary.documentId, kind)}>
                {label}
              </Button>
            ))
          : null}
      </Flex>
    </Box>
  );
}

export function KeysTable({ keys, days, canReveal }: { keys: KeySummary[]; days: number; canReveal: boolean }) {
  const t = useMessage();
  const format = useFormat();
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Box>
      <Typography variant="sigma" textColor="neutral600" tag="h2">
        {t('keys.title')}
      </Typography>
      <Box paddingTop={3}>
        <Table colCount={7} rowCount={keys.length + 1} data-testid="image-api-keys-table">
          <Thead>
            <Tr>
              <Th><Typography variant="sigma">{t('keys.name')}</Typography></Th>
              <Th><Typography variant="sigma">{t('keys.status')}</Typography></Th>
              <Th><Typography variant="sigma">{t('keys.key')}</Typography></Th>
              <Th><Typography variant="sigma">{t('keys.last-used')}</Typography></Th>
              <Th><Typography variant="sigma">{t('keys.uploads', { days })}</Typography></Th>
              <Th><Typography variant="sigma">{t('keys.holding')}</Typography></Th>
              <Th><Typography variant="sigma">{t('keys.usage')}</Typography></Th>
            </Tr>
          </Thead>
          <Tbody>
            {keys.map((key) => [
              <Tr key={key.documentId}>
                <Td><Typography fontWeight="semiBold">{key.name}</Typography></Td>
                <Td><Badge backgroundColor={`${STATUS_COLOURS[key.status]}100`} textColor={`${STATUS_COLOURS[key.status]}700`}>{t(`keys.status.${key.status}`)}</Badge></Td>
                <Td><Typography style={{ fontFamily: 'monospace' }}>{key.prefix ? `${key.prefix}…${key.last4}` : '—'}</Typography></Td>
                <Td><Typography>{format.date(key.lastUsedAt)}</Typography></Td>
                <Td><Typography>{format.number(key.uploadsInWindow)} / {format.number(key.uploads)}</Typography></Td>
                <Td>
                  <Typography textColor={atQuota(key.holding) ? 'danger600' : undefined} data-testid="image-api-key-holding">
                    {t('keys.holding.value', { ...holdingParts(key.holding, format), count: key.holding.images })}
                  </Typography>
                </Td>
                <Td>
                  <Button variant="tertiary" size="S" onClick={() => setOpen(open === key.documentId ? null : key.documentId)}>
                    {open === key.documentId ? t('keys.hide') : t('keys.show')}
                  </Button>
                </Td>
              </Tr>,
              open === key.documentId ? (
                <Tr key={`${key.documentId}-detail`}>
                  <Td colSpan={7}>
                    <KeyDetail summary={key} days={days} canReveal={canReveal} />
                  </Td>
                </Tr>
              ) : null,
            ])}
          </Tbody>
        </Table>
      </Box>
    </Box>
  );
}
