/**
 * The "Image API" page of the admin menu: totals, uploads and views per day, the most viewed and
 * the latest images (delete from there), and, for admins who may see keys, every key's use. What each
 * admin sees follows the plugin's permissions; the server enforces them on every route.
 */
import { useCallback, useEffect, useState } from 'react';
import { Box, Flex, SingleSelect, SingleSelectOption } from '@strapi/design-system';
import { Layouts, Page, useFetchClient, useNotification } from '@strapi/strapi/admin';
import { ImageGrid } from '../components/usage/ImageGrid';
import { KeysTable } from '../components/usage/KeysTable';
import { StatCards } from '../components/usage/StatCards';
import { UsageChart } from '../components/usage/UsageChart';
import { imageLabel, type ImageCard, type KeySummary, type Overview } from '../components/usage/types';
import { ACTIONS } from '../permissions';

const WINDOWS = [7, 30, 90];

function UsagePage() {
  const { get, del } = useFetchClient();
  const { toggleNotification } = useNotification();
  const [days, setDays] = useState(30);
  const [overview, setOverview] = useState<Overview | null>(null);
  const [keys, setKeys] = useState<KeySummary[] | null>(null);
  const [failed, setFailed] = useState(false);

  const load = useCallback(async () => {
    try {
      const res = await get<{ data: Overview }>(`/image-api/usage/overview?days=${days}`);
      setOverview(res.data.data);
      if (res.data.data.permissions.keys) {
        setKeys((await get<{ data: KeySummary[] }>(`/image-api/usage/keys?days=${days}`)).data.data);
      }
    } catch {
      setFailed(true);
    }
  }, [get, days]);
  useEffect(() => {
    load();
  }, [load]);

  const remove = useCallback(
    async (image: ImageCard) => {
      if (!window.confirm(`Delete "${imageLabel(image)}"? Its files and record go for good.`)) return;
      try {
        await del(`/image-api/images/${image.idEncoded}`);
        // Reloaded first: the notification comes with the page already showing the image gone.
        await load();
        toggleNotification({ type: 'success', message: 'Image deleted' });
      } catch {
        toggleNotification({ type: 'danger', message: 'The image could not be deleted' });
      }
    },
    [del, load, toggleNotification]
  );

  if (failed) return <Page.Error />;
  if (!overview) return <Page.Loading />;
  const { permissions } = overview;
  return (
    <Page.Main>
      <Page.Title>Image API</Page.Title>
      <Layouts.Header
        title="Image API"
        subtitle="Uploads through /api/1/upload: usage, images and keys"
        primaryAction={
          <Box minWidth="160px">
            <SingleSelect aria-label="Window" value={String(days)} onChange={(value: string | number) => setDays(Number(value))}>
              {WINDOWS.map((window) => (
                <SingleSelectOption key={window} value={String(window)}>
                  Last {window} days
                </SingleSelectOption>
              ))}
            </SingleSelect>
          </Box>
        }
      />
      <Layouts.Content>
        <Flex direction="column" alignItems="stretch" gap={8} paddingBottom={10}>
          <StatCards totals={overview.totals} window={days} />
          <Box background="neutral0" hasRadius shadow="tableShadow" padding={5}>
            <UsageChart days={overview.days} label={`Uploads and views per day, last ${days} days`} />
          </Box>
          <ImageGrid images={overview.topViewed} label="Most viewed" testId="image-api-top-viewed" />
          <ImageGrid
            images={overview.recent}
            label="Recent uploads"
            testId="image-api-recent"
            onDelete={permissions.deleteImages ? remove : undefined}
          />
          {permissions.keys && keys ? <KeysTable keys={keys} days={days} canReveal={permissions.reveal} /> : null}
        </Flex>
      </Layouts.Content>
    </Page.Main>
  );
}

/** Behind `usage.read`: others get Strapi's "no permissions" page, as with any admin page. */
export default function ProtectedUsagePage() {
  return (
    <Page.Protect permissions={[{ action: ACTIONS.usageRead, subject: null }]}>
      <UsagePage />
    </Page.Protect>
  );
}
