/**
 * Every key with its status, last use and uploads; a key's row opens its own usage chart, a link to
 * its entry and, for admins who may reveal keys, its client configurations.
 */
import { useEffect, useState } from 'react';
import { Badge, Box, Button, Flex, Table, Tbody, Td, Th, Thead, Tr, Typography } from '@strapi/design-system';
import { useFetchClient } from '@strapi/strapi/admin';
import { Link } from 'react-router-dom';
import { CLIENT_FILES, useClientConfigDownload } from '../../hooks/useClientConfigDownload';
import { KEY_UID } from '../../permissions';
import { UsageChart } from './UsageChart';
import { formatDate, type DayUsage, type KeySummary } from './types';

const STATUS_COLOURS = { active: 'success', revoked: 'danger', expired: 'warning' } as const;

function KeyDetail({ summary, days, canReveal }: { summary: KeySummary; days: number; canReveal: boolean }) {
  const { get } = useFetchClient();
  const download = useClientConfigDownload();
  const [usage, setUsage] = useState<DayUsage[] | null>(null);
  useEffect(() => {
    get<{ data: DayUsage[] }>(`/image-api/usage/keys/${summary.documentId}?days=${days}`).then((res) => setUsage(res.data.data));
  }, [get, summary.documentId, days]);
  return (
    <Box padding={4} background="neutral100" hasRadius data-testid="image-api-key-detail">
      {usage ? <UsageChart days={usage} label={`${summary.name}: uploads and views per day`} height={200} /> : null}
      <Flex gap={2} wrap="wrap" paddingTop={3}>
        <Button variant="secondary" size="S" tag={Link} to={`/content-manager/collection-types/${KEY_UID}/${summary.documentId}`}>
          Open the key's entry
        </Button>
        {canReveal
          ? CLIENT_FILES.map(({ kind, label, filename }) => (
              <Button key={kind} variant="tertiary" size="S" onClick={() => download(summary.documentId, kind, filename)}>
                {label}
              </Button>
            ))
          : null}
      </Flex>
    </Box>
  );
}

export function KeysTable({ keys, days, canReveal }: { keys: KeySummary[]; days: number; canReveal: boolean }) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Box>
      <Typography variant="sigma" textColor="neutral600" tag="h2">
        API keys
      </Typography>
      <Box paddingTop={3}>
        <Table colCount={6} rowCount={keys.length + 1} data-testid="image-api-keys-table">
          <Thead>
            <Tr>
              <Th><Typography variant="sigma">Name</Typography></Th>
              <Th><Typography variant="sigma">Status</Typography></Th>
              <Th><Typography variant="sigma">Key</Typography></Th>
              <Th><Typography variant="sigma">Last used</Typography></Th>
              <Th><Typography variant="sigma">Uploads ({days} days / all)</Typography></Th>
              <Th><Typography variant="sigma">Usage</Typography></Th>
            </Tr>
          </Thead>
          <Tbody>
            {keys.map((key) => [
              <Tr key={key.documentId}>
                <Td><Typography fontWeight="semiBold">{key.name}</Typography></Td>
                <Td><Badge backgroundColor={`${STATUS_COLOURS[key.status]}100`} textColor={`${STATUS_COLOURS[key.status]}700`}>{key.status}</Badge></Td>
                <Td><Typography style={{ fontFamily: 'monospace' }}>{key.prefix ? `${key.prefix}…${key.last4}` : '—'}</Typography></Td>
                <Td><Typography>{formatDate(key.lastUsedAt)}</Typography></Td>
                <Td><Typography>{key.uploadsInWindow} / {key.uploads}</Typography></Td>
                <Td>
                  <Button variant="tertiary" size="S" onClick={() => setOpen(open === key.documentId ? null : key.documentId)}>
                    {open === key.documentId ? 'Hide' : 'Show'}
                  </Button>
                </Td>
              </Tr>,
              open === key.documentId ? (
                <Tr key={`${key.documentId}-detail`}>
                  <Td colSpan={6}>
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
