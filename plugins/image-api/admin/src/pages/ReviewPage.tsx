/**
 * The "Image review" page of the admin menu (docs/moderation.md, "Review"): the queue of flagged,
 * held and reported images, oldest first, each blurred until the reviewer chooses to look; approve,
 * take down, block; the blocklist's counts and hash list imports. Behind `images.review`, which the
 * server enforces on every route.
 */
import { useCallback, useEffect, useState } from 'react';
import { Box, Button, Flex, Grid, Typography } from '@strapi/design-system';
import { Layouts, Page, useNotification } from '@strapi/strapi/admin';
import type { BlockKind, BlocklistCounts, QueueItem, QueuePage } from '../../../shared/contracts/review';
import { ACTIONS } from '../../../shared/identity';
import { useImageApi } from '../api';
import { HashImport } from '../components/review/HashImport';
import { QueueCard } from '../components/review/QueueCard';
import { useMessage } from '../hooks/useMessage';

function ReviewPage() {
  const api = useImageApi();
  const t = useMessage();
  const { toggleNotification } = useNotification();
  const [page, setPage] = useState(1);
  const [queue, setQueue] = useState<QueuePage | null>(null);
  const [counts, setCounts] = useState<BlocklistCounts | null>(null);
  const [failed, setFailed] = useState(false);

  const load = useCallback(async () => {
    try {
      const [answer, listed] = await Promise.all([api.reviewQueue(page), api.blocklist()]);
      // A page emptied by the last actions: the one before it.
      if (answer.items.length === 0 && page > 1) return setPage(page - 1);
      setQueue(answer);
      setCounts(listed);
    } catch {
      setFailed(true);
    }
  }, [api, page]);
  useEffect(() => {
    load();
  }, [load]);

  /** Runs an action, reloads the queue, then says how it went. */
  const act = useCallback(
    async (action: () => Promise<unknown>, done: Parameters<typeof t>[0], failure: Parameters<typeof t>[0]) => {
      try {
        await action();
        await load();
        toggleNotification({ type: 'success', message: t(done) });
      } catch {
        toggleNotification({ type: 'danger', message: t(failure) });
      }
    },
    [load, t, toggleNotification]
  );

  if (failed) return <Page.Error />;
  if (!queue) return <Page.Loading />;
  const pages = Math.max(1, Math.ceil(queue.total / queue.pageSize));
  return (
    <Page.Main>
      <Page.Title>{t('review.title')}</Page.Title>
      <Layouts.Header title={t('review.title')} subtitle={t('review.subtitle', { count: queue.total })} />
      <Layouts.Content>
        <Flex direction="column" alignItems="stretch" gap={8} paddingBottom={10}>
          {queue.items.length === 0 ? (
            <Box background="neutral0" hasRadius shadow="tableShadow" padding={8} data-testid="image-api-review-empty">
              <Typography textColor="neutral600">{t('review.empty')}</Typography>
            </Box>
          ) : (
            <Grid.Root gap={4} data-testid="image-api-review-queue">
              {queue.items.map((item: QueueItem) => (
                <Grid.Item key={item.idEncoded} col={4} s={6} xs={12} direction="column" alignItems="stretch">
                  <QueueCard
                    item={item}
                    onApprove={() => act(() => api.approve(item.idEncoded), 'review.approve.done', 'review.failed')}
                    onTakedown={(_, reason) => act(() => api.takedown(item.idEncoded, reason), 'review.takedown.done', 'review.failed')}
                    onBlock={(_, reason) => act(() => api.block(item.idEncoded, reason), 'review.block.done', 'review.failed')}
                  />
                </Grid.Item>
              ))}
            </Grid.Root>
          )}
          {pages > 1 ? (
            <Flex gap={3} justifyContent="center">
              <Button variant="tertiary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                {t('review.previous')}
              </Button>
              <Typography>{t('review.page', { page, pages })}</Typography>
              <Button variant="tertiary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
                {t('review.next')}
              </Button>
            </Flex>
          ) : null}
          <HashImport
            counts={counts}
            onImport={async (kind: BlockKind, text: string) => {
              const answer = await api.importHashes(kind, text);
              setCounts(answer.counts);
              return answer;
            }}
          />
        </Flex>
      </Layouts.Content>
    </Page.Main>
  );
}

/** Behind `images.review`: others get Strapi's "no permissions" page, as with any admin page. */
export default function ProtectedReviewPage() {
  return (
    <Page.Protect permissions={[{ action: ACTIONS.imagesReview, subject: null }]}>
      <ReviewPage />
    </Page.Protect>
  );
}
