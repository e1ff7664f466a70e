/**
 * One image of the review queue: its thumbnail blurred (and not clickable through) until the
 * reviewer chooses to look, its scores as percentages, its state, reports and key, and the actions.
 * The thumbnail comes from the review's admin route (a held image's public URLs answer 404), as an
 * object URL made here and revoked when the card goes.
 */
import { useEffect, useState } from 'react';
import { Badge, Box, Button, Flex, Typography } from '@strapi/design-system';
import type { NsfwScores, QueueItem } from '../../../../shared/contracts/review';
import { useImageApi } from '../../api';
import { useFormat } from '../../hooks/useFormat';
import { useMessage, type MessageId } from '../../hooks/useMessage';
import { ConfirmButton } from '../ConfirmButton';
import { ReasonButton } from './ReasonButton';

interface Props {
  item: QueueItem;
  onApprove: (item: QueueItem) => Promise<void>;
  onTakedown: (item: QueueItem, reason: string) => Promise<void>;
  onBlock: (item: QueueItem, reason: string) => Promise<void>;
}

const CLASSES: Array<keyof NsfwScores> = ['porn', 'hentai', 'sexy', 'drawing', 'neutral'];
const THUMB_HEIGHT = 180;

export function QueueCard({ item, onApprove, onTakedown, onBlock }: Props) {
  const t = useMessage();
  const format = useFormat();
  const api = useImageApi();
  const [src, setSrc] = useState<string | null>(null);
  const [shown, setShown] = useState(false);

  useEffect(() => {
    let url: string | null = null;
    let gone = false;
    api
      .reviewThumbnail(item.idEncoded)
      .then((made) => {
        if (gone) URL.revokeObjectURL(made);
        else setSrc((url = made));
      })
      .catch(() => undefined);
    return () => {
      gone = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [api, item.idEncoded]);

  const percent = (value: number) => `${format.number(Math.round(value * 1000) / 10)} %`;
  return (
    <Box background="neutral0" hasRadius shadow="tableShadow" overflow="hidden" data-testid="image-api-review-card" data-id={item.idEncoded}>
      <Box background="neutral100" position="relative" style={{ height: THUMB_HEIGHT, display: 'flex', alignItems: 'center', justifyContent: 'center', overflow: 'hidden' }}>
        {src ? (
          <img
            src={src}
            alt={t('review.thumbnail', { id: item.idEncoded })}
            data-testid="image-api-review-thumbnail"
            // Blurred and inert until shown: no click, drag or long press reaches the picture.
            style={{
              maxHeight: THUMB_HEIGHT,
              maxWidth: '100%',
              filter: shown ? 'none' : 'blur(24px)',
              pointerEvents: shown ? 'auto' : 'none',
              userSelect: 'none',
            }}
            draggable={false}
          />
        ) : null}
        {!shown ? (
          <Box position="absolute">
            <Button variant="secondary" size="S" onClick={() => setShown(true)} data-testid="image-api-review-show">
              {t('review.show')}
            </Button>
          </Box>
        ) : null}
      </Box>
      <Flex direction="column" alignItems="stretch" gap={2} padding={3}>
        <Flex gap={2} wrap="wrap">
          <Typography fontWeight="semiBold">{item.idEncoded}</Typography>
          <Badge data-testid="image-api-review-state">{t(`review.state.${item.moderation}` as MessageId)}</Badge>
          {item.nsfw ? <Badge>{t('review.nsfw')}</Badge> : null}
        </Flex>
        <Typography variant="pi" textColor="neutral600">
          {t('review.uploaded', { date: format.date(item.createdAt) })} · {t('review.queued', { date: format.date(item.reviewSince) })}
        </Typography>
        <Typography variant="pi" textColor="neutral600">
          {item.keyName ? t('images.key', { name: item.keyName }) : t('review.no-key')}
          {item.width && item.height ? ` · ${item.width}×${item.height}` : ''}
        </Typography>
        {item.nsfwScores ? (
          <Box data-testid="image-api-review-scores">
            <Typography variant="pi" fontWeight="bold">
              {t('review.score', { score: percent(item.nsfwScore ?? 0) })}
            </Typography>
            <Typography variant="pi" textColor="neutral600" tag="p">
              {CLASSES.map((name) => `${t(`review.class.${name}` as MessageId)} ${percent(item.nsfwScores![name])}`).join(' · ')}
            </Typography>
          </Box>
        ) : (
          <Typography variant="pi" textColor="neutral600">
            {t('review.not-classified')}
          </Typography>
        )}
        {item.reportCount > 0 ? (
          <Box data-testid="image-api-review-reports">
            <Typography variant="pi" fontWeight="bold">
              {t('review.reports', { count: item.reportCount })}
            </Typography>
            {item.reports.map((report, i) => (
              <Typography key={i} variant="pi" textColor="neutral600" tag="p">
                {t(`review.reason.${report.reason}` as MessageId)} · {format.date(report.createdAt)}
                {report.text ? ` — “${report.text}”` : ''}
              </Typography>
            ))}
          </Box>
        ) : null}
        <Flex gap={2} paddingTop={2} wrap="wrap">
          <ConfirmButton
            variant="success-light"
            size="S"
            title={t('review.approve.title')}
            question={t('review.approve.confirm', { id: item.idEncoded })}
            onConfirm={() => onApprove(item)}
          >
            <span data-testid="image-api-review-approve">{t('review.approve')}</span>
          </ConfirmButton>
          <ReasonButton
            title={t('review.takedown.title')}
            question={t('review.takedown.confirm')}
            confirm={t('review.takedown')}
            onConfirm={(reason) => onTakedown(item, reason)}
            testId="image-api-review-takedown"
          >
            {t('review.takedown')}
          </ReasonButton>
          <ReasonButton
            variant="danger"
            title={t('review.block.title')}
            question={t('review.block.confirm')}
            confirm={t('review.block')}
            onConfirm={(reason) => onBlock(item, reason)}
            testId="image-api-review-block"
          >
            {t('review.block')}
          </ReasonButton>
        </Flex>
      </Flex>
    </Box>
  );
}
