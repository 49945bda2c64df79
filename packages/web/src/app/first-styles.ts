/**
 * The component library's styles the first page needs (the login page and what every page shows while it
 * loads), in the library's order: its variables and global rules, then each component's sheet. The rest
 * of the library's sheet comes with the first page past the login page (all-styles.ts), so a signed-out
 * visitor downloads about a third of it. A component the login page starts using needs its sheet here.
 */
import '@mantine/core/styles/baseline.css';
import '@mantine/core/styles/default-css-variables.css';
import '@mantine/core/styles/global.css';
import '@mantine/core/styles/UnstyledButton.css';
import '@mantine/core/styles/VisuallyHidden.css';
import '@mantine/core/styles/Paper.css';
import '@mantine/core/styles/Center.css';
import '@mantine/core/styles/Group.css';
import '@mantine/core/styles/Stack.css';
import '@mantine/core/styles/Text.css';
import '@mantine/core/styles/Title.css';
import '@mantine/core/styles/Anchor.css';
import '@mantine/core/styles/Divider.css';
import '@mantine/core/styles/Loader.css';
import '@mantine/core/styles/CloseButton.css';
import '@mantine/core/styles/ActionIcon.css';
import '@mantine/core/styles/Button.css';
import '@mantine/core/styles/Input.css';
import '@mantine/core/styles/PasswordInput.css';
import '@mantine/core/styles/Combobox.css';
import '@mantine/core/styles/Alert.css';
import '@mantine/core/styles/Notification.css';
import '@mantine/notifications/styles.css';
