/**
 * "API key" side panel on a key entry's edit view: the key (masked until shown), a copy button, a
 * regenerate action, and client configurations filled in with the key (ShareX, PicGo/PicList, curl).
 * The key and the configurations come from the plugin's admin routes, decrypted on the server.
 */
import { useCallback, useEffect, useState } from 'react';
import { Box, Button, Flex, Typography } from '@strapi/design-system';
import { useFetchClient, useNotification } from '@strapi/strapi/admin';
import { CLIENT_FILES, useClientConfigDownload } from '../hooks/useClientConfigDownload';
import { KEY_UID } from '../permissions';

interface PanelProps {
  model: string;
  documentId?: string;
}

const mask = (key: string) => `${key.slice(0, 8)}${'•'.repeat(20)}${key.slice(-4)}`;

function KeyReveal({ documentId }: { documentId: string }) {
  const { get, post } = useFetchClient();
  const { toggleNotification } = useNotification();
  const [key, setKey] = useState<string | null>(null);
  const [shown, setShown] = useState(false);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    get<{ data: { key: string } }>(`/image-api/api-keys/${documentId}/key`)
      .then((res) => setKey(res.data.data.key))
      .catch(() => setFailed(true));
  }, [documentId, get]);

  const copy = useCallback(async () => {
    if (!key) return;
    try {
      await navigator.clipboard.writeText(key);
      toggleNotification({ type: 'success', message: 'API key copied' });
    } catch {
      setShown(true);
      toggleNotification({ type: 'warning', message: 'Copying is not allowed here: select the key and copy it' });
    }
  }, [key, toggleNotification]);

  const regenerate = useCallback(async () => {
    if (!window.confirm('Issue a new key? The current one stops working at once.')) return;
    const res = await post<{ data: { key: string } }>(`/image-api/api-keys/${documentId}/regenerate`);
    setKey(res.data.data.key);
    setShown(true);
    toggleNotification({ type: 'success', message: 'New key issued: send it to the requester' });
  }, [documentId, post, toggleNotification]);

  const download = useClientConfigDownload();

  if (failed) {
    return <Typography textColor="danger600">The key cannot be shown (no encrypted copy, or no permission).</Typography>;
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
          {shown ? 'Hide' : 'Show'}
        </Button>
        <Button onClick={copy} disabled={!key}>
          Copy
        </Button>
        <Button variant="danger-light" onClick={regenerate} disabled={!key}>
          Regenerate
        </Button>
      </Flex>
      <Typography variant="pi" textColor="neutral600">
        Send the key to the requester. It works until the entry is deactivated, expires or is deleted.
      </Typography>
      <Typography variant="sigma" textColor="neutral600">
        Client configuration
      </Typography>
      <Flex gap={2} wrap="wrap">
        {CLIENT_FILES.map(({ kind, label, filename }) => (
          <Button key={kind} variant="tertiary" size="S" onClick={() => download(documentId, kind, filename)} disabled={!key}>
            {label}
          </Button>
        ))}
      </Flex>
    </Flex>
  );
}

export const ApiKeyPanel = ({ model, documentId }: PanelProps) => {
  if (model !== KEY_UID) return null;
  return {
    title: 'API key',
    content: documentId ? (
      <KeyReveal documentId={documentId} />
    ) : (
      <Typography variant="pi" textColor="neutral600">
        The key is generated on the server when you save this entry.
      </Typography>
    ),
  };
};
