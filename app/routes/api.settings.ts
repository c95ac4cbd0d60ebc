import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { saveSettingsAndKeys, settingsView } from '~/services/user-settings.server';
import { withApi } from '~/http/api-context.server';
import { settingsRequestSchema } from '~/utils/settings-request';
import { themeCookieHeader } from '~/runtime/theme.server';

// GET /api/settings → { settings } (keys masked, never in full); POST the settings fields.
export function loader({ request }: LoaderFunctionArgs) {
  return withApi(request, 'inputs', async (ctx) => ctx.ok({ settings: await settingsView(ctx.user.id) }));
}

export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'inputs',
    async (ctx) => {
      await saveSettingsAndKeys(ctx.user.id, await ctx.read(settingsRequestSchema));
      const settings = await settingsView(ctx.user.id);
      return ctx.ok({ settings, message: ctx.t('settings.updated') }, { headers: { 'Set-Cookie': themeCookieHeader(settings.darkMode) } });
    },
    { methods: ['POST'], allow: 'GET, POST' },
  );
}
