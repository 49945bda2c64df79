/** Placeholder until the page is written. */
import { Title } from '@mantine/core';

export default function Page() {
  return <Title order={2}>PlaygroundPage</Title>;
}
