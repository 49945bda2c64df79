/** Edits every channel of a tag at once (PUT /api/channel/tag): only the fields filled in are set. */
import { Button, Group, Modal, NumberInput, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { ListField } from '../../components/fields';
import { useApiMutation } from '../../components/useApiMutation';

interface Values {
  new_tag: string;
  priority: number | string;
  weight: number | string;
  models: string[];
  groups: string[];
}

export function TagEditModal({ tag, onClose }: { tag: string; onClose: () => void }) {
  const { t } = useTranslation();
  const form = useForm<Values>({ initialValues: { new_tag: tag, priority: '', weight: '', models: [], groups: [] } });
  const save = useApiMutation(
    (x: Values) =>
      call(
        client.PUT('/api/channel/tag', {
          body: {
            tag,
            ...(x.new_tag.trim() !== tag ? { new_tag: x.new_tag.trim() || null } : {}),
            ...(x.priority !== '' ? { priority: Number(x.priority) } : {}),
            ...(x.weight !== '' ? { weight: Number(x.weight) } : {}),
            ...(x.models.length ? { models: x.models } : {}),
            ...(x.groups.length ? { groups: x.groups } : {}),
          },
        }),
      ),
    {
      invalidate: ['channels', 'channel'],
      success: (d) => t('channels.tagEdited', { count: d.length }),
      onSuccess: onClose,
    },
  );
  return (
    <Modal opened onClose={onClose} title={t('channels.editTag', { tag })} size="lg" closeButtonProps={{ 'aria-label': t('common.close') }}>
      <form onSubmit={form.onSubmit((x) => save.mutate(x))}>
        <Stack>
          <Text size="sm" c="dimmed">
            {t('channels.editTagHint')}
          </Text>
          <TextInput label={t('channels.tag')} maxLength={64} {...form.getInputProps('new_tag')} />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <NumberInput label={t('channels.priority')} allowDecimal={false} {...form.getInputProps('priority')} />
            <NumberInput label={t('channels.weight')} allowDecimal={false} min={0} {...form.getInputProps('weight')} />
          </SimpleGrid>
          <ListField label={t('channels.models')} description={t('channels.listHint')} {...form.getInputProps('models')} />
          <ListField label={t('channels.groups')} description={t('channels.listHint')} {...form.getInputProps('groups')} />
          {save.error && (
            <Text c="red" size="sm" role="alert">
              {save.error.message}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={save.isPending}>
              {t('common.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
