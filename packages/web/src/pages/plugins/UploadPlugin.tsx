/**
 * Upload a plugin version: drop (or pick) the ESM file, optionally an icon, remark and switches. The
 * server's refusal names a field ("meta.version: …", "source …"): it is shown at that field.
 */
import { Alert, Checkbox, Group, List, Stack, Text, TextInput } from '@mantine/core';
import { Dropzone } from '@mantine/dropzone';
import '@mantine/dropzone/styles.css';
import { useForm } from '@mantine/form';
import { IconFileCode, IconUpload, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { FormModal } from '../../components/FormModal';
import { useApiMutation } from '../../components/useApiMutation';

const MAX_SOURCE = 1024 * 1024;
const FORM_FIELDS = ['source', 'sourceSha256', 'remark', 'icon', 'enabled', 'force'];

/** "meta.version: must be …" → ["meta.version", "must be …"]; "source is required" → ["source", "is required"]. */
export function splitFieldError(message: string): [string | null, string] {
  const m = /^([A-Za-z_][\w.[\]-]*):\s+(.+)$/s.exec(message) ?? /^(source|sourceSha256|enabled|icon|remark)\s+(.+)$/s.exec(message);
  return m ? [m[1], m[2]] : [null, message];
}

export function UploadPlugin({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const [fileName, setFileName] = useState<string | null>(null);
  const [manifestErrors, setManifestErrors] = useState<[string, string][]>([]);
  const form = useForm({
    initialValues: { source: '', icon: '', remark: '', enabled: true, force: false },
    validate: {
      source: (x) => (!x.trim() ? t('plugins.sourceRequired') : new Blob([x]).size > MAX_SOURCE ? t('plugins.sourceTooLarge') : null),
    },
  });
  const upload = useApiMutation(
    (x: typeof form.values) =>
      call(
        client.POST('/api/plugin/task', {
          body: {
            source: x.source,
            remark: x.remark || undefined,
            enabled: x.enabled,
            force: x.force || undefined,
            icon: x.icon || undefined,
          },
        }),
      ),
    {
      invalidate: ['plugins'],
      success: (d) => t('plugins.uploaded', { name: `${(d as { plugin?: string }).plugin}@${(d as { version?: string }).version}` }),
      onSuccess: onClose,
    },
  );
  const submit = form.onSubmit((x) => {
    setManifestErrors([]);
    upload.mutate(x, {
      onError: (e) => {
        const [field, msg] = splitFieldError(e.message);
        if (field && FORM_FIELDS.includes(field)) form.setFieldError(field, msg);
        else if (field) setManifestErrors([[field, msg]]);
      },
    });
  });
  const readFile = (files: File[], into: 'source' | 'icon') => {
    const f = files[0];
    if (!f) return;
    const r = new FileReader();
    r.onload = () => {
      form.setFieldValue(into, String(r.result ?? ''));
      if (into === 'source') setFileName(f.name);
    };
    if (into === 'source') r.readAsText(f);
    else r.readAsDataURL(f);
  };
  const [field] = upload.error ? splitFieldError(upload.error.message) : [null];
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={t('plugins.upload')}
      onSubmit={submit}
      pending={upload.isPending}
      submitLabel={t('plugins.uploadSubmit')}
      error={upload.error && !field ? upload.error : null}
    >
      <Stack gap={4}>
        <Text size="sm" fw={500} id="plugin-source-label">
          {t('plugins.source')}{' '}
          <Text span c="red">
            *
          </Text>
        </Text>
        <Dropzone
          onDrop={(f) => readFile(f, 'source')}
          maxSize={MAX_SOURCE}
          multiple={false}
          aria-labelledby="plugin-source-label"
          inputProps={{ 'aria-label': t('plugins.source') }}
          accept={{ 'text/javascript': ['.js', '.mjs'], 'application/javascript': ['.js', '.mjs'] }}
          onReject={() => form.setFieldError('source', t('plugins.sourceRejected'))}
        >
          <Group justify="center" gap="md" mih={90} style={{ pointerEvents: 'none' }}>
            <Dropzone.Accept>
              <IconUpload size={36} />
            </Dropzone.Accept>
            <Dropzone.Reject>
              <IconX size={36} />
            </Dropzone.Reject>
            <Dropzone.Idle>
              <IconFileCode size={36} />
            </Dropzone.Idle>
            <div>
              <Text size="sm">{fileName ? t('plugins.fileChosen', { name: fileName }) : t('plugins.dropHere')}</Text>
              <Text size="xs" c="dimmed">
                {t('plugins.dropHint')}
              </Text>
            </div>
          </Group>
        </Dropzone>
        {form.errors.source && (
          <Text size="xs" c="red" role="alert">
            {form.errors.source}
          </Text>
        )}
      </Stack>
      {manifestErrors.length > 0 && (
        <Alert color="red" role="alert" title={t('plugins.manifestInvalid')}>
          <List size="sm">
            {manifestErrors.map(([f, m]) => (
              <List.Item key={f}>
                <Text span ff="monospace" fw={600}>
                  {f}
                </Text>
                : {m}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      <Stack gap={4}>
        <Text size="sm" fw={500} id="plugin-icon-label">
          {t('plugins.icon')}
        </Text>
        <Dropzone
          onDrop={(f) => readFile(f, 'icon')}
          maxSize={512 * 1024}
          multiple={false}
          aria-labelledby="plugin-icon-label"
          inputProps={{ 'aria-label': t('plugins.icon') }}
          accept={['image/png', 'image/svg+xml']}
        >
          <Text size="xs" c="dimmed" ta="center" style={{ pointerEvents: 'none' }}>
            {form.values.icon ? t('plugins.iconChosen') : t('plugins.iconHint')}
          </Text>
        </Dropzone>
        {form.errors.icon && (
          <Text size="xs" c="red" role="alert">
            {form.errors.icon}
          </Text>
        )}
      </Stack>
      <TextInput label={t('plugins.remark')} {...form.getInputProps('remark')} />
      <Checkbox label={t('plugins.enableAfter')} {...form.getInputProps('enabled', { type: 'checkbox' })} />
      <Checkbox label={t('plugins.force')} description={t('plugins.forceHint')} {...form.getInputProps('force', { type: 'checkbox' })} />
    </FormModal>
  );
}
