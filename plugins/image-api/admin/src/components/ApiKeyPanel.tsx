/**
 * "API key" side panel on a key entry's edit view: the key (masked until shown), a copy button, a
 * regenerate action, and client configurations filled in with the key (ShareX, PicGo/PicList, curl).
 * The key and the configurations come from the plugin's admin routes, decrypted on the server.
 */
import { useCallback, useEffect, useState } from 'react';
import { Box, Button, Flex, Typography } from '@strapi/design-system';
import { useNotification } from '@strapi/strapi/admin';
import { API_KEY_UID } from '../../../shared/identity';
import { useImageApi } from '../api';
import { useClientConfigDownload, useClientFiles } from '../hooks/useClientConfigDownload';
import { useMessage } from '../hooks/useMessage';
import { useFormat } from '../hooks/useFormat';
import { useCopy } from '../hooks/useCopy';
import { ConfirmButton } from './ConfirmButton';
import { atQuota, holdingParts, type KeyHolding } from '../../../shared/contracts/usage';

interface PanelProps {
  model: string;
  documentId?: string;
}

const mask = (key: string) => `${key.slice(0, 8)}${'•'.repeat(20)}${key.slice(-4)}`;

function KeyReveal({ documentId }: { documentId: string }) {
  const api = useImageApi();
  const t = useMessage();
  const { toggleNotification } = useNotification();
  const [key, setKey] = useState<string | null>(null);
  const [shown, setShown] = useState(false);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    api
      .revealKey(documentId)
      .then(setKey)
      .catch(() => setFailed(true));
  }, [documentId, api]);

  const copyText = useCopy({ copied: 'key-panel.copied', refused: 'key-panel.copy-refused' });
  const copy = useCallback(async () => {
    // Refused: the key is shown, to be selected.
    if (key && !(await copyText(key))) setShown(true);
  }, [key, copyText]);

  const regenerate = useCallback(async () => {
    setKey(await api.regenerateKey(documentId));
    setShown(true);
    toggleNotification({ type: 'success', message: t('key-panel.regenerated') });
  }, [documentId, api, t, toggleNotification]);

  const download = useClientConfigDownload();
  const clientFiles = useClientFiles();

  if (failed) {
    return <Typography textColor="danger600">{t('key-panel.unavailable')}</Typography>;
  }
  return (
    <Flex direction="column" alignItems="stretch" gap={3} width="100%">
      <Box padding={2} background="neutral100" hasRadius>
        <Typography data-testid="image-api-key" fontWeight="semiBold" style={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
          {key === null ? '…' : shown ? key : mask(key)}
        </Typography>
      </Box>
      <Flex gap={2} wrap="wrap">
        <Button variant="secondary" onClick={() => setShown(!shown)} disabled={!key}>
          {shown ? t('key-panel.hide') : t('key-panel.show')}
        </Button>
        <Button onClick={copy} disabled={!key}>
          {t('key-panel.copy')}
        </Button>
        <ConfirmButton title={t('key-panel.regenerate.title')} question={t('key-panel.regenerate.confirm')} onConfirm={regenerate} disabled={!key}>
          {t('key-panel.regenerate')}
        </ConfirmButton>
      </Flex>
      <Typography variant="pi" textColor="neutral600">
        {t('key-panel.hint')}
      </Typography>
      <Typography variant="sigma" textColor="neutral600">
        {t('key-panel.client-config')}
      </Typography>
      <Flex gap={2} wrap="wrap">
        {clientFiles.map(({ kind, label }) => (
          <Button key={kind} variant="tertiary" size="S" onClick={() => download(documentId, kind)} disabled={!key}>
            {label}
          </Button>
        ))}
      </Flex>
    </Flex>
  );
}

/** What the key holds against its quotas; shown to admins who may manage keys (else nothing). */
function KeyHoldingLine({ documentId }: { documentId: string }) {
  const api = useImageApi();
  const t = useMessage();
  const format = useFormat();
  const [holding, setHolding] = useState<KeyHolding | null>(null);
  useEffect(() => {
    api
      .keyHolding(documentId)
      .then(setHolding)
      .catch(() => setHolding(null));
  }, [documentId, api]);
  if (!holding) return null;
  return (
    <Box paddingTop={2}>
      <Typography variant="sigma" textColor="neutral600">
        {t('key-panel.holding')}
      </Typography>
      <Typography tag="p" textColor={atQuota(holding) ? 'danger600' : undefined} data-testid="image-api-key-panel-holding">
        {t('keys.holding.value', { ...holdingParts(holding, format), count: holding.images })}
      </Typography>
    </Box>
  );
}

// Called by the Content Manager as a hook, on every entry: the hook comes before the type check.
export const ApiKeyPanel = ({ model, documentId }: PanelProps) => {
  const t = useMessage();
  if (model !== API_KEY_UID) return null;
  return {
    title: t('key-panel.title'),
    content: documentId ? (
      <Flex direction="column" alignItems="stretch" width="100%">
        <KeyReveal documentId={documentId} />
        <KeyHoldingLine documentId={documentId} />
      </Flex>
    ) : (
      <Typography variant="pi" textColor="neutral600">
        {t('key-panel.unsaved')}
      </Typography>
    ),
  };
};
