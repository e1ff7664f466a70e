/**
 * The blocklist's side of the review: how many fingerprints it holds of each kind, and the import
 * of a hash list an operator was given (one hex hash a line), pasted or chosen as a file. A list
 * whose request would pass HASH_LIST_MAX_BYTES is refused here before it is sent (the server
 * refuses it too).
 */
import { useRef, useState } from 'react';
import { Box, Button, Field, Flex, SingleSelect, SingleSelectOption, Textarea, Typography } from '@strapi/design-system';
import { BLOCK_KINDS, HASH_LIST_MAX_BYTES, type BlockKind, type BlocklistCounts, type ImportAnswer } from '../../../../shared/contracts/review';
import { useFormat } from '../../hooks/useFormat';
import { useMessage, type MessageId } from '../../hooks/useMessage';

interface Props {
  counts: BlocklistCounts | null;
  onImport: (kind: BlockKind, text: string) => Promise<ImportAnswer>;
}

export function HashImport({ counts, onImport }: Props) {
  const t = useMessage();
  const format = useFormat();
  const [kind, setKind] = useState<BlockKind>('sha256');
  const [pasted, setPasted] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);
  const picker = useRef<HTMLInputElement>(null);

  const submit = async () => {
    setOutcome(null);
    const text = file ? await file.text() : pasted;
    // As the request will carry it: JSON, newlines escaped.
    if (new TextEncoder().encode(JSON.stringify({ text })).length > HASH_LIST_MAX_BYTES) {
      setOutcome(t('review.import.too-large', { size: format.size(HASH_LIST_MAX_BYTES) }));
      return;
    }
    setBusy(true);
    try {
      const answer = await onImport(kind, text);
      setOutcome(
        t('review.import.done', { added: answer.added, duplicates: answer.duplicates, invalid: answer.invalidCount }) +
          (answer.invalid.length > 0 ? ` ${t('review.import.invalid-lines', { lines: answer.invalid.join(', ') })}` : '')
      );
      setPasted('');
      setFile(null);
      if (picker.current) picker.current.value = '';
    } catch {
      setOutcome(t('review.import.failed'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box background="neutral0" hasRadius shadow="tableShadow" padding={5} data-testid="image-api-review-import">
      <Flex direction="column" alignItems="stretch" gap={3}>
        <Typography variant="delta" tag="h2">
          {t('review.blocklist')}
        </Typography>
        <Typography textColor="neutral600" data-testid="image-api-review-counts">
          {counts
            ? BLOCK_KINDS.map((name) => `${t(`review.kind.${name}` as MessageId)}: ${format.number(counts[name])}`).join(' · ')
            : '…'}
        </Typography>
        <Typography textColor="neutral600">{t('review.import.help', { size: format.size(HASH_LIST_MAX_BYTES) })}</Typography>
        <Flex gap={3} alignItems="flex-end" wrap="wrap">
          <Box minWidth="200px">
            <Field.Root name="kind">
              <Field.Label>{t('review.import.kind')}</Field.Label>
              <SingleSelect value={kind} onChange={(value: string | number) => setKind(String(value) as BlockKind)}>
                {BLOCK_KINDS.map((name) => (
                  <SingleSelectOption key={name} value={name}>
                    {t(`review.kind.${name}` as MessageId)}
                  </SingleSelectOption>
                ))}
              </SingleSelect>
            </Field.Root>
          </Box>
          <input
            ref={picker}
            type="file"
            accept=".txt,.csv,text/plain"
            style={{ display: 'none' }}
            onChange={(event) => setFile(event.target.files?.[0] ?? null)}
            data-testid="image-api-review-import-file"
          />
          <Button variant="secondary" onClick={() => picker.current?.click()}>
            {t('review.import.choose')}
          </Button>
          {file ? (
            <Typography textColor="neutral600">
              {file.name} · {format.size(file.size)}
            </Typography>
          ) : null}
        </Flex>
        {file ? null : (
          <Field.Root name="hashes">
            <Field.Label>{t('review.import.paste')}</Field.Label>
            <Textarea value={pasted} onChange={(event: React.ChangeEvent<HTMLTextAreaElement>) => setPasted(event.target.value)} data-testid="image-api-review-import-text" />
          </Field.Root>
        )}
        <Flex gap={3}>
          <Button onClick={submit} loading={busy} disabled={busy || (!file && pasted.trim() === '')} data-testid="image-api-review-import-submit">
            {t('review.import.submit')}
          </Button>
          {outcome ? (
            <Typography role="status" data-testid="image-api-review-import-outcome">
              {outcome}
            </Typography>
          ) : null}
        </Flex>
      </Flex>
    </Box>
  );
}
