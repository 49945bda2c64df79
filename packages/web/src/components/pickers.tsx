/**
 * Searchable pickers fed by the API, so that nobody types an id or a model name from memory: users (searched by
 * name on the server), the models the channels serve, and channels by name.
 */
import { Autocomplete, Select, type AutocompleteProps, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../api/client';

type PickerProps = Omit<SelectProps, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange'> & {
  /** The chosen id as text; '' for none. */
  value?: string;
  onChange?: (v: string) => void;
};

/** A choice searched on the server as one types (20 at a time); the chosen one stays listed while others are searched. */
function SearchPicker({
  value,
  onChange,
  name,
  search: fetchOptions,
  ...props
}: PickerProps & { name: string; search: (keyword: string) => Promise<Array<{ value: string; label: string }>> }) {
  const [search, setSearch] = useState('');
  const [keyword] = useDebouncedValue(search, 250);
  const found = useQuery({ queryKey: ['picker', name, keyword], queryFn: () => fetchOptions(keyword), placeholderData: keepPreviousData });
  const [chosen, setChosen] = useState<{ value: string; label: string } | null>(null);
  const data = [...(found.data ?? [])];
  if (chosen && value === chosen.value && !data.some((d) => d.value === chosen.value)) data.unshift(chosen);
  return (
    <Select
      searchable
      clearable
      // The server filtered already: what it sent is shown, whatever is typed.
      filter={({ options }) => options}
      {...props}
      data={data}
      value={value || null}
      searchValue={search}
      onSearchChange={setSearch}
      onChange={(v, option) => {
        setChosen(v ? { value: v, label: option.label } : null);
        onChange?.(v ?? '');
      }}
    />
  );
}

/** A user, searched by name; the value is the user's id. */
export function UserPicker(props: PickerProps) {
  const { t } = useTranslation();
  return (
    <SearchPicker
      name="user"
      nothingFoundMessage={t('pickers.noUser')}
      placeholder={t('pickers.searchUser')}
      search={async (keyword) =>
        (await call(client.GET('/api/user', { params: { query: { keyword: keyword || undefined, page_size: 20 } } }))).items.map((u) => ({
          value: String(u.id),
          label: `${u.username} (#${u.id})`,
        }))
      }
      {...props}
    />
  );
}

/** A channel, searched by name (admins); the value is its id. */
export function ChannelPicker(props: PickerProps) {
  const { t } = useTranslation();
  return (
    <SearchPicker
      name="channel"
      nothingFoundMessage={t('pickers.noChannel')}
      placeholder={t('pickers.searchChannel')}
      search={async (keyword) =>
        (await call(client.GET('/api/channel', { params: { query: { keyword: keyword || undefined, page_size: 20 } } }))).items.map(
          (c) => ({ value: String(c.id), label: c.name }),
        )
      }
      {...props}
    />
  );
}

/** Every model some channel lists (admins). */
export function useChannelModels(enabled = true) {
  return useQuery({ queryKey: ['channel-models'], queryFn: () => call(client.GET('/api/channel/models')), enabled });
}

/** One model: suggestions from the channels' models as one types; any name can still be entered (a task model). */
export function ModelPicker(props: Omit<AutocompleteProps, 'data'>) {
  const models = useChannelModels();
  return <Autocomplete data={models.data ?? []} limit={50} {...props} />;
}
