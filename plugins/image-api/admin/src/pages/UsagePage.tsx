/**
 * The "Image API" page of the admin menu: totals, uploads and views per day, the most viewed and
 * the latest images (delete from there), and, for admins who may see keys, every key's use. What each
 * admin sees follows the plugin's permissions; the server enforces them on every route.
 */
import { useCallback, useEffect, useState } from 'react';
import { Box, Button, Flex, SingleSelect, SingleSelectOption } from '@strapi/design-system';
import { Plus } from '@strapi/icons';
import { Link } from 'react-router-dom';
import { Layouts, Page, useNotification } from '@strapi/strapi/admin';
import { DEFAULT_USAGE_WINDOW, USAGE_WINDOWS, type ImageCard, type KeySummary, type OverviewAnswer } from '../../../shared/contracts/usage';
import { ACTIONS, API_KEY_UID } from '../../../shared/identity';
import { useImageApi } from '../api';
import { ImageGrid } from '../components/usage/ImageGrid';
import { KeysTable } from '../components/usage/KeysTable';
import { StatCards } from '../components/usage/StatCards';
import { UsageChart } from '../components/usage/UsageChart';
import { useMessage } from '../hooks/useMessage';

function UsagePage() {
  const api = useImageApi();
  const t = useMessage();
  const { toggleNotification } = useNotification();
  const [days, setDays] = useState<number>(DEFAULT_USAGE_WINDOW);
  const [overview, setOverview] = useState<OverviewAnswer | null>(null);
  const [keys, setKeys] = useState<KeySummary[] | null>(null);
  const [failed, setFailed] = useState(false);

  const load = useCallback(async () => {
    try {
      const answer = await api.overview(days);
      setOverview(answer);
      if (answer.permissions.keys) setKeys(await api.keys(days));
    } catch {
      setFailed(true);
    }
  }, [api, days]);
  useEffect(() => {
    load();
  }, [load]);

  const remove = useCallback(
    async (image: ImageCard) => {
      try {
        await api.deleteImage(image.idEncoded);
        // Reloaded first: the notification comes with the page already showing the image gone.
        await load();
        toggleNotification({ type: 'success', message: t('usage.delete.done') });
      } catch {
        toggleNotification({ type: 'danger', message: t('usage.delete.failed') });
      }
    },
    [api, load, t, toggleNotification]
  );

  if (failed) return <Page.Error />;
  if (!overview) return <Page.Loading />;
  const { permissions } = overview;
  return (
    <Page.Main>
      <Page.Title>{t('usage.title')}</Page.Title>
      <Layouts.Header
        title={t('usage.title')}
        subtitle={t('usage.subtitle')}
        primaryAction={
          <Flex gap={2}>
            <Box minWidth="160px">
              <SingleSelect aria-label={t('usage.window')} value={String(days)} onChange={(value: string | number) => setDays(Number(value))}>
                {USAGE_WINDOWS.map((window) => (
                  <SingleSelectOption key={window} value={String(window)}>
                    {t('usage.window.option', { days: window })}
                  </SingleSelectOption>
                ))}
              </SingleSelect>
            </Box>
            {/* Keys are issued where the key panel is: a new API key entry in the Content Manager;
                saving it makes the key, shown in the entry's panel (docs/api-keys.md, "Issuing"). */}
            {permissions.keys ? (
              <Button tag={Link} to={`/content-manager/collection-types/${API_KEY_UID}/create`} startIcon={<Plus />} data-testid="image-api-new-key">
                {t('usage.new-key')}
              </Button>
            ) : null}
          </Flex>
        }
      />
      <Layouts.Content>
        <Flex direction="column" alignItems="stretch" gap={8} paddingBottom={10}>
          <StatCards totals={overview.totals} window={days} />
          <Box background="neutral0" hasRadius shadow="tableShadow" padding={5}>
            <UsageChart days={overview.days} label={t('usage.chart', { days })} />
          </Box>
          <ImageGrid
            images={overview.topViewed}
            serving={overview.serving}
            label={t('usage.top-viewed')}
            empty={t('usage.top-viewed.none')}
            testId="image-api-top-viewed"
          />
          <ImageGrid
            serving={overview.serving}
            images={overview.recent}
            label={t('usage.recent')}
            empty={t('images.none')}
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
