/** The console API's success envelope, `{success: true, message, data}`, that its routes answer with. */
export const ok = <T>(data: T, message = '') => ({ success: true, message, data });
