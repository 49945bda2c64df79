/** Tests every channel, two at a time, and lists each result as it arrives. */
import { Button, Group, Modal, Progress, Table, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { fmtMs } from '../../lib/format';

interface Result {
  id: number;
  name: string;
  ok: boolean;
  text: string;
}

export function TestAllModal({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [total, setTotal] = useState<number | null>(null);
  const [results, setResults] = useState<Result[]>([]);
  const [error, setError] = useState<string | null>(null);
  const stopped = useRef(false);

  useEffect(() => {
    stopped.current = false;
    void (async () => {
      try {
        const all: { id: number; name: string }[] = [];
        for (let page = 1; ; page++) {
          const d = await call(client.GET('/api/channel', { params: { query: { page, page_size: 100 } } }));
          all.push(...d.items.map((c) => ({ id: c.id!, name: c.name! })));
          if (all.length >= d.total || d.items.length === 0) break;
        }
        setTotal(all.length);
        const queue = [...all];
        const worker = async () => {
          for (let c = queue.shift(); c && !stopped.current; c = queue.shift()) {
            let r: Result;
            try {
              const d = (await call(client.POST('/api/channel/{id}/test', { params: { path: { id: c.id } }, body: {} }))) as {
                time_ms?: number;
              };
              r = { ...c, ok: true, text: fmtMs(d.time_ms) };
            } catch (e) {
              r = { ...c, ok: false, text: (e as Error).message };
            }
            setResults((prev) => [...prev, r]);
          }
        };
        await Promise.all([worker(), worker()]);
      } catch (e) {
        setError((e as Error).message);
      }
      void qc.invalidateQueries({ queryKey: ['channels'] });
    })();
    return () => {
      stopped.current = true;
    };
  }, [qc]);

  const done = total !== null && results.length >= total;
  return (
    <Modal closeButtonProps={{ 'aria-label': t('common.close') }} opened onClose={onClose} title={t('channels.testAll')} size="lg" centered>
      {error && (
        <Text c="red" role="alert">
          {error}
        </Text>
      )}
      <Progress value={total ? (results.length / total) * 100 : 0} mb="sm" aria-label={t('channels.testProgress')} animated={!done} />
      <Text size="sm" mb="sm" aria-live="polite">
        {t('channels.testCount', { done: results.length, total: total ?? '…' })}
      </Text>
      <Table aria-label={t('channels.testResults')}>
        <Table.Tbody>
          {results.map((r) => (
            <Table.Tr key={r.id}>
              <Table.Td>{r.name}</Table.Td>
              <Table.Td c={r.ok ? 'green' : 'red'}>{r.ok ? t('channels.ok') : t('channels.failed')}</Table.Td>
              <Table.Td>
                <Text size="sm" lineClamp={2}>
                  {r.text}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group justify="flex-end" mt="md">
        <Button onClick={onClose}>{done ? t('common.close') : t('common.cancel')}</Button>
      </Group>
    </Modal>
  );
}
