/** Under the login form: "create an account" when sign-up is on, "forgot your password?" when mail can be sent. */
import { Anchor, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useSignupSettings } from '../signup/PublicCard';

export function LoginLinks() {
  const { t } = useTranslation();
  const { data } = useSignupSettings();
  if (!data || (!data.enabled && !data.email_configured)) return null;
  return (
    <Group justify="space-between" gap="xs">
      {data.enabled ? (
        <Anchor component={Link} to="/signup" size="sm">
          {t('signup.createAccount')}
        </Anchor>
      ) : (
        <span />
      )}
      {data.email_configured && (
        <Anchor component={Link} to="/forgot-password" size="sm">
          {t('signup.forgotLink')}
        </Anchor>
      )}
    </Group>
  );
}
