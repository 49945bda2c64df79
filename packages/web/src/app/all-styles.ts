/**
 * The component library's whole style sheet, loaded with every page past the login page (router.tsx).
 * It repeats the rules of first-styles.ts in the library's own order, so the cascade is the same as
 * with the whole sheet alone.
 */
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
