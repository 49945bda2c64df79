/**
 * The gateway's API types, generated from its OpenAPI document by scripts/gen-api.ts.
 * Do not edit: run `npm run gen-api -w @gatehouse/web`.
 */

export interface paths {
    "/api/alert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The alert outbox: every delivery with its status and attempts, newest first (admin) */
        get: {
            parameters: {
                query?: {
                    kind?: string;
                    /** @description alias of page */
                    p?: number;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                    status?: "pending" | "delivered" | "failed";
                    /** @description operator or user:<id> */
                    target?: string;
                    transport?: "webhook" | "email";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["Alert"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/alert/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queue a test operator alert (400 when no operator destination is set) (root) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AlertEvent"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The audit log of administrative writes, newest first (admin) */
        get: {
            parameters: {
                query?: {
                    /** @description exact, or <type>.* for every action on a type */
                    action?: string;
                    /** @description username (system for system writes) or user id */
                    actor?: string;
                    /** @description unix ms (or s), or ISO 8601 */
                    from?: number | string;
                    /** @description alias of page */
                    p?: number;
                    /** @description 1-based page (default 1) */
                    page?: number;
                    /** @description rows per page (default 20) */
                    page_size?: number;
                    target_id?: string;
                    /** @description user, key, channel, price, group_ratio, option, plugin, marketplace, redemption, task */
                    target_type?: string;
                    /** @description unix ms (or s), or ISO 8601 */
                    to?: number | string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["AuditEntry"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List channels (admin) */
        get: {
            parameters: {
                query?: {
                    group?: string;
                    keyword?: string;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                    /** @description enabled, disabled or auto_disabled */
                    status?: string;
                    tag?: string;
                    /** @description channel type name or number */
                    type?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["Channel"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Create a channel (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ChannelInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Channel"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One channel (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Channel"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Update a channel (absent keys are kept) (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ChannelInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Channel"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        /** Delete a channel (admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/{id}/keys/{index}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Enable or disable one key of a channel (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                    index: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        enabled: boolean;
                        reason?: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Channel"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a small test request through the channel (success false with the upstream's message when it fails) (admin) */
        post: {
            parameters: {
                query?: {
                    /** @description the model to test (when the body names none) */
                    model?: string;
                };
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        model?: string;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                model: string;
                                status: number | null;
                                time_ms: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/{id}/test_all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Test every model of a channel; kept as its last test (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["ChannelTestAll"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Delete the channels with these ids; how many went (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        ids: number[];
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: number;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/copy/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Copy a channel under its name plus a suffix (admin) */
        post: {
            parameters: {
                query?: {
                    /** @description true (default) or false */
                    reset_balance?: string;
                    /** @description default _copy */
                    suffix?: string;
                };
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Channel"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/disabled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete every disabled channel (by hand or automatically); how many went (admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: number;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/fetch_models/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The upstream's model list (data), with what a sync would add to and remove from the channel's models (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            added: string[];
                            data: string[];
                            message: string;
                            removed: string[];
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every model some channel lists, sorted (for pickers) (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: string[];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/tag": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Set the same fields on every channel of a tag; the channels changed (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        groups?: string[] | string;
                        header_override?: {
                            [key: string]: unknown;
                        };
                        /** @description random or round_robin */
                        key_mode?: string;
                        /** @description model → upstream model */
                        model_mapping?: {
                            [key: string]: unknown;
                        };
                        models?: string[] | string;
                        new_tag?: string | null;
                        param_override?: {
                            [key: string]: unknown;
                        };
                        priority?: number;
                        tag: string;
                        test_model?: string | null;
                        weight?: number;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Channel"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/tag/disabled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Disable every channel of a tag; the ids changed (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        tag: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: number[];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/tag/enabled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable every channel of a tag; the ids changed (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        tag: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: number[];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/update_balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read and store the balance of every enabled OpenAI-compatible channel; each result (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                balance: number | null;
                                error: string | null;
                                id: number;
                                name: string;
                            }[];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/update_balance/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the channel's upstream balance from its vendor's billing endpoint and store it (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                balance: number;
                                balance_updated_at: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channel/upstream-url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Where a chat call to `model` would go on a channel of this type, base URL and settings: the URL the relay builds (null for task channels and for a URL that needs what only a key holds) (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description empty: the preset or the type default */
                        base_url?: string;
                        /** @description default MODEL */
                        model?: string;
                        settings?: {
                            [key: string]: unknown;
                        };
                        /** @description channel type name or number */
                        type?: number | string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                url: string | null;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/group_ratio": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Group ratios (1 when a group has none) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["GroupRatio"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Set a group ratio (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        group: string;
                        ratio: number;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["GroupRatio"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/group_ratio/{group}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a group ratio (admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    group: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Query logs with totals for the filter (newest first, keyset pages) (admin) */
        get: {
            parameters: {
                query?: {
                    channel_id?: number;
                    /** @description next_cursor of the page before: the page after it (page is then ignored); pages by number reach the newest 10,000 rows */
                    cursor?: string;
                    /** @description unix ms (or s), or ISO 8601 */
                    end?: number | string;
                    /** @description alias of token_id */
                    key_id?: number;
                    key_name?: string;
                    model?: string;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                    request_id?: string;
                    /** @description unix ms (or s), or ISO 8601 */
                    start?: number | string;
                    /** @description API key id (alias key_id) */
                    token_id?: number;
                    type?: "consume" | "error" | "task" | "system" | "topup" | "mcp";
                    user_id?: number;
                    username?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["LogPage"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/log/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The logs of a filter as CSV (newest first), streamed: Content-Disposition attachment (admin) */
        get: {
            parameters: {
                query?: {
                    channel_id?: number;
                    /** @description unix ms (or s), or ISO 8601 */
                    end?: number | string;
                    /** @description alias of token_id */
                    key_id?: number;
                    key_name?: string;
                    model?: string;
                    request_id?: string;
                    /** @description unix ms (or s), or ISO 8601 */
                    start?: number | string;
                    /** @description API key id (alias key_id) */
                    token_id?: number;
                    type?: "consume" | "error" | "task" | "system" | "topup" | "mcp";
                    user_id?: number;
                    username?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description CSV with a header row, CRLF line ends (Content-Disposition: attachment) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/csv": string;
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/log/self": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your own logs (same filters except user and channel; no channel or upstream model in the rows) */
        get: {
            parameters: {
                query?: {
                    /** @description next_cursor of the page before: the page after it (page is then ignored); pages by number reach the newest 10,000 rows */
                    cursor?: string;
                    /** @description unix ms (or s), or ISO 8601 */
                    end?: number | string;
                    /** @description alias of token_id */
                    key_id?: number;
                    key_name?: string;
                    model?: string;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                    request_id?: string;
                    /** @description unix ms (or s), or ISO 8601 */
                    start?: number | string;
                    /** @description API key id (alias key_id) */
                    token_id?: number;
                    type?: "consume" | "error" | "task" | "system" | "topup" | "mcp";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["LogPage"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/log/self/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your own logs as CSV (streamed) */
        get: {
            parameters: {
                query?: {
                    /** @description unix ms (or s), or ISO 8601 */
                    end?: number | string;
                    /** @description alias of token_id */
                    key_id?: number;
                    key_name?: string;
                    model?: string;
                    request_id?: string;
                    /** @description unix ms (or s), or ISO 8601 */
                    start?: number | string;
                    /** @description API key id (alias key_id) */
                    token_id?: number;
                    type?: "consume" | "error" | "task" | "system" | "topup" | "mcp";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description CSV with a header row, CRLF line ends (Content-Disposition: attachment) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/csv": string;
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/mcp/servers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Registered MCP servers (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["McpServer"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Register an MCP server (409 when the name exists) (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["McpServerInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["McpServer"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/mcp/servers/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One MCP server (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description server name */
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["McpServer"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Change an MCP server (headers and oauth replace the stored ones) (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description server name */
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["McpServerInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["McpServer"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        /** Delete an MCP server (admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description server name */
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/mcp/servers/{name}/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The server's tools (502 when it cannot be reached) (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description server name */
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["McpTool"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/option": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** All options with their values and defaults (root) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Option"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Set one option ({key, value}) or several ({options: {...}}) (root) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["OptionChange"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Option"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/option/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Reset an option to its default (root) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Option"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Plans, with their running subscribers (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Plan"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Update a plan (id in the body) (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PlanInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Plan"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Create a plan (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PlanInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Plan"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plan/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One plan (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Plan"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Update a plan (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PlanInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Plan"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        /** Delete a plan nobody holds (409 plan_in_use otherwise) (admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plan/{id}/subscribers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A plan's running subscribers (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PlanSubscriber"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/guardrail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Installed guardrail plugins with their runtime state (docs/guardrails.md) (root) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["ServingPlugin"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Install a guardrail plugin version (same as POST) (root) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PluginUpload"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginUploaded"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Install a guardrail plugin version (validated like task plugins); PUT does the same (root) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PluginUpload"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginUploaded"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/guardrail/{key}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable or disable a guardrail plugin (root) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description plugin key */
                    key: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        enabled: boolean;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginStatusChange"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/guardrail/{key}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run an enabled guardrail's check on a sample text: the verdict and the texts as a mask leaves them (root) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description plugin key */
                    key: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        model?: string;
                        /**
                         * @description input or output
                         * @enum {string}
                         */
                        stage?: "input" | "output";
                        text?: string;
                        texts?: string[];
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description the failure of the plugin, when it failed */
                                error?: string;
                                /** @description thrown, timeout, memory, invalid_result */
                                kind?: string;
                                texts: string[];
                                verdict: {
                                    [key: string]: unknown;
                                } | null;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/guardrail/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This node's guardrail verdicts since it started, by plugin and action (root) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description verdicts by plugin and action */
                            data: {
                                [key: string]: {
                                    [key: string]: number;
                                };
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/mcp_tool": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Installed MCP tool plugins with their runtime state (docs/mcp.md#tool-plugins); meta.tools names their tools (root) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["ServingPlugin"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Install an MCP tool plugin version (same as POST) (root) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PluginUpload"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginUploaded"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Install an MCP tool plugin version (validated like task plugins); PUT does the same (root) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PluginUpload"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginUploaded"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/mcp_tool/{key}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable or disable an MCP tool plugin (root) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description plugin key */
                    key: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        enabled: boolean;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginStatusChange"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Installed task plugins with their runtime state (root) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginSummary"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Upload a plugin version (same as POST) (root) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PluginUpload"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginUploaded"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Upload a plugin version (validated; a 400 names the field in `field` and at the start of the message); PUT does the same (root) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PluginUpload"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginUploaded"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One plugin: a version (default the active one) with its source and manifests (root) */
        get: {
            parameters: {
                query?: {
                    version?: string;
                };
                header?: never;
                path: {
                    /** @description plugin key */
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginDetail"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task/{key}/activate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make a stored version the active one (root) */
        post: {
            parameters: {
                query?: {
                    /** @description also when in use (true or 1) */
                    force?: string;
                };
                header?: never;
                path: {
                    /** @description plugin key */
                    key: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        force?: boolean;
                        version: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                active_version: string;
                                generation: number;
                                plugin: string;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task/{key}/dryrun": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Call a hook of the active version in a fresh isolate (root) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description plugin key */
                    key: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        args?: unknown[];
                        /** @description e.g. task.submit */
                        hook: string;
                        member?: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                hook: string;
                                output: unknown;
                                plugin: string;
                                version: string;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task/{key}/icon": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The plugin's icon (root) */
        get: {
            parameters: {
                query?: {
                    version?: string;
                };
                header?: never;
                path: {
                    /** @description plugin key */
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the icon bytes */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "image/*": string;
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task/{key}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable or disable a plugin (disabling one in use needs ?cascade=true for bound channels and ?force=true for tasks in flight) (root) */
        post: {
            parameters: {
                query?: {
                    /** @description disable or unbind the channels bound to it (true or 1) */
                    cascade?: string;
                    /** @description also with tasks in flight (true or 1) */
                    force?: string;
                };
                header?: never;
                path: {
                    /** @description plugin key */
                    key: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        enabled: boolean;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginStatusChange"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description in use (bound channels, tasks in flight), or conflicting with the running plugins */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PluginInUse"] | components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task/{key}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Stored versions, newest first (root) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description plugin key */
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginVersion"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task/{key}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a stored version (the active one of an enabled plugin in use needs ?force=true) (root) */
        delete: {
            parameters: {
                query?: {
                    /** @description also when in use (true or 1) */
                    force?: string;
                };
                header?: never;
                path: {
                    /** @description plugin key */
                    key: string;
                    version: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                deleted_version: string;
                                disabled_channels: number[];
                                plugin: string;
                                unbound_channels: number[];
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description in use: bound channels and tasks in flight */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PluginInUse"] | components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task/marketplace/index": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Fetch a market index (by source name or URL) (root) */
        get: {
            parameters: {
                query?: {
                    /** @description or an index URL */
                    index_url?: string;
                    /** @description a source name */
                    source?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                index: components["schemas"]["MarketIndex"];
                                index_url: string;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task/marketplace/install": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Install a plugin version from a market index (checked against its sha256) (root) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        enabled?: boolean;
                        force?: boolean;
                        index_url?: string;
                        key: string;
                        source?: string;
                        /** @description default: latest */
                        version?: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginUploaded"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task/marketplace/sources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Market sources (root) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["MarketSource"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Replace the market sources (root) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description the sources, or {sources} */
            requestBody: {
                content: {
                    "application/json": components["schemas"]["MarketSource"][] | {
                        sources: components["schemas"]["MarketSource"][];
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["MarketSource"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugin/task/runtime/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The plugin runtime of this node: generation, last rebuild, errors, pools (root) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PluginRuntimeStatus"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/price": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List model prices */
        get: {
            parameters: {
                query?: {
                    keyword?: string;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["Price"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Set the price of a model (replaces it; POST does the same) (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PriceInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Price"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Set the price of a model (replaces it; the same as PUT) (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PriceInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Price"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/price/{model}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Price of one model */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the model (may contain /) */
                    model: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Price"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a price (admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the model (may contain /) */
                    model: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/price/catalog": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The list-price catalog: every entry with its source and date, and whether the price book has the model (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["CatalogEntry"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/price/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Adopt the catalog's prices (all, or `models`); prices already set are kept unless `overwrite` (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description a list, or comma-separated */
                        models?: string[] | string;
                        overwrite?: boolean;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["CatalogImport"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/price/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** What a call with a given usage would cost at a price being edited (`price`) or a saved one (`model`) (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PricePreviewInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PricePreview"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pricing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The models a visitor may call with their price per group (404 unless PublicPricingEnabled) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PublicPricing"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/quota/holds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Open quota holds of every node (QuotaAllowanceEnabled): what each has taken, spent and still holds (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["QuotaHold"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/redemption": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Redemption codes, newest first, with the codes in full (admin) */
        get: {
            parameters: {
                query?: {
                    /** @description part of the name, or a whole code (at most 128 characters) */
                    keyword?: string;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                    status?: "enabled" | "disabled" | "used" | "expired";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["RedemptionCode"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Enable (status 1) or disable (status 2) an unused code (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description the code's id */
                        id: number | string;
                        /**
                         * @description enabled (1) or disabled (2)
                         * @enum {unknown}
                         */
                        status: 1 | 2 | "enabled" | "disabled";
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["RedemptionCode"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description the code was already used */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Create a batch of codes; data is the list of codes (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["RedemptionBatch"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: string[];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/redemption/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One code (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["RedemptionCode"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a code (the ledger row of a used one stays) (admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/redemption/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Codes of a filter as CSV (with the codes): Content-Disposition attachment (admin) */
        get: {
            parameters: {
                query?: {
                    /** @description part of the name, or a whole code (at most 128 characters) */
                    keyword?: string;
                    status?: "enabled" | "disabled" | "used" | "expired";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/csv": string;
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/redemption/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The same list, by keyword (New API path) (admin) */
        get: {
            parameters: {
                query?: {
                    /** @description part of the name, or a whole code (at most 128 characters) */
                    keyword?: string;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                    status?: "enabled" | "disabled" | "used" | "expired";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["RedemptionCode"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sso/{id}/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The provider's redirect: checks state, nonce and PKCE, signs in (session cookie) and redirects to the console (the next of the start, default /; /login?second_factor=… when the account has a second factor; /profile?sso_linked={id} after a link) */
        get: {
            parameters: {
                query?: {
                    code?: string;
                    state?: string;
                };
                header?: never;
                path: {
                    /** @description provider id */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description to the console with a session cookie; when refused, a browser (Accept: text/html) is sent to /login?sso_error=<code> */
                302: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sso/{id}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Begin a login: redirects to the provider (sets a short-lived flow cookie) */
        get: {
            parameters: {
                query?: {
                    /** @description console path to return to after the login (same origin; default /) */
                    next?: string;
                };
                header?: never;
                path: {
                    /** @description provider id */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description to the provider's authorization page, with the flow cookie set; when refused, a browser (Accept: text/html) is sent to /login?sso_error=<code> */
                302: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sso/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Single sign-on providers (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["SsoProvider"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Add a provider (409 when the id exists) (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SsoProviderInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["SsoProvider"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description a provider with this id exists */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sso/providers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One provider (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description provider id */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["SsoProvider"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Change a provider (fields not given are kept; client_secret only when given) (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description provider id */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SsoProviderInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["SsoProvider"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        /** Delete a provider and its sign-in links (the accounts stay) (admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description provider id */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sso/providers/public": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Enabled providers for the login page's buttons */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["SsoPublicProvider"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/stripe/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stripe webhook (checkout.session.completed, async_payment_succeeded, expired); verified by the Stripe-Signature header over the raw body */
        post: {
            parameters: {
                query?: never;
                header: {
                    /** @description the provider's signature over the raw body */
                    "stripe-signature": string;
                };
                path?: never;
                cookie?: never;
            };
            /** @description the provider's event, as it sent it */
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description applied (message: credited, already_credited, granted, already_granted, expired, ignored, unknown_payment, mismatch) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description the signature does not verify: nothing applied */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description Stripe is not configured */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/task": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List tasks (admins: tasks of users and their own; root: all) (admin) */
        get: {
            parameters: {
                query?: {
                    /** @description none, reserving, reserved, settled, refunded */
                    billing_status?: string;
                    channel_id?: number;
                    /** @description created at or before: unix ms (or s), or ISO 8601 */
                    end?: number | string;
                    /** @description true or false */
                    flagged?: boolean | string;
                    model?: string;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                    plugin?: string;
                    /** @description created at or after: unix ms (or s), or ISO 8601 */
                    start?: number | string;
                    /** @description NOT_START, SUBMITTED, QUEUED, IN_PROGRESS, SUCCESS, FAILURE, UNKNOWN */
                    status?: string;
                    /** @description public id */
                    task_id?: string;
                    user_id?: number;
                    username?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["AdminTask"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/task/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One task with its ledger movements (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description public id task_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AdminTaskDetail"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/task/{id}/resolve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resolve a flagged task (409 when not flagged or resolved differently; a repeat of the same resolution changes nothing) (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description public id task_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["TaskResolve"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AdminTaskDetail"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/task/self": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your own tasks (no upstream ids, no channels) */
        get: {
            parameters: {
                query?: {
                    /** @description created at or before: unix ms (or s), or ISO 8601 */
                    end?: number | string;
                    model?: string;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                    plugin?: string;
                    /** @description created at or after: unix ms (or s), or ISO 8601 */
                    start?: number | string;
                    /** @description NOT_START, SUBMITTED, QUEUED, IN_PROGRESS, SUCCESS, FAILURE, UNKNOWN */
                    status?: string;
                    /** @description public id */
                    task_id?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["OwnTask"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/task/self/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One of your own tasks with its callback deliveries */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description public id task_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["OwnTaskDetail"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Teams, by name (admin) */
        get: {
            parameters: {
                query?: {
                    keyword?: string;
                    page?: number;
                    page_size?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["Team"][];
                                page: number;
                                page_size: number;
                                total: number;
                            } & {
                                [key: string]: unknown;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Create a team with an empty wallet (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["TeamInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Team"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A team you belong to, with your role (admins: any team) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Team"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Change a team (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["TeamInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Team"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        /** Delete a team: its members and open invitations go, its keys are disabled (admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The team's invitations, newest first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["TeamInvitation"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Invite an address: a link that works once, until it expires, mailed (or returned to hand over) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        email: string;
                        /** @description a role in the team */
                        role: "owner" | "admin" | "member" | "viewer";
                        /** @description how long the link works (default 72) */
                        ttl_hours?: number;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                invitation: components["schemas"]["TeamInvitation"];
                                /** @description the link to hand over (only when it was not mailed); it works once */
                                link?: string;
                                /** @description the link was mailed to the address */
                                mailed: boolean;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/invitations/{invId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an open invitation */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                    invId: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The team's keys (owners and admins: all; members: their own) */
        get: {
            parameters: {
                query?: {
                    keyword?: string;
                    page?: number;
                    page_size?: number;
                };
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: ({
                                    hint: string;
                                    id: number;
                                    name: string;
                                    status: string;
                                    team_id: number | null;
                                    user_id: number;
                                } & {
                                    [key: string]: unknown;
                                })[];
                                page: number;
                                page_size: number;
                                total: number;
                            } & {
                                [key: string]: unknown;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Create a key for yourself paid by the team (the fields of POST /api/token); shown once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            /** @description the fields of POST /api/token */
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                hint: string;
                                id: number;
                                name: string;
                                status: string;
                                team_id: number | null;
                                user_id: number;
                            } & {
                                [key: string]: unknown;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a team key (owners and admins: any; members: their own) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                    keyId: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The team keys' log rows (owners and admins: every member's, without others' request and answer text unless the operator allows it; members: their own) */
        get: {
            parameters: {
                query?: {
                    /** @description next_cursor of the page before: the page after it (page is then ignored); pages by number reach the newest 10,000 rows */
                    cursor?: string;
                    /** @description unix ms (or s), or ISO 8601 */
                    end?: number | string;
                    /** @description alias of token_id */
                    key_id?: number;
                    key_name?: string;
                    model?: string;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                    request_id?: string;
                    /** @description unix ms (or s), or ISO 8601 */
                    start?: number | string;
                    /** @description API key id (alias key_id) */
                    token_id?: number;
                    type?: "consume" | "error" | "task" | "system" | "topup" | "mcp";
                };
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: ({
                                    content?: string | null;
                                    id: number;
                                    key_id?: number | null;
                                    user_id?: number | null;
                                } & {
                                    [key: string]: unknown;
                                })[];
                                next_cursor: string | null;
                                page: number;
                                page_size: number;
                                /** @description rows the filter matches, counted up to 10,000 (see totals_capped) */
                                total: number;
                                totals: components["schemas"]["LogTotals"];
                                /** @description the filter matches more than 10,000 rows: total and totals are those of the newest 10,000 */
                                totals_capped: boolean;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/logs/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The team keys' log rows as CSV (streamed; the same rows as the list) */
        get: {
            parameters: {
                query?: {
                    /** @description unix ms (or s), or ISO 8601 */
                    end?: number | string;
                    /** @description alias of token_id */
                    key_id?: number;
                    key_name?: string;
                    model?: string;
                    request_id?: string;
                    /** @description unix ms (or s), or ISO 8601 */
                    start?: number | string;
                    /** @description API key id (alias key_id) */
                    token_id?: number;
                    type?: "consume" | "error" | "task" | "system" | "topup" | "mcp";
                };
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description CSV with a header row, CRLF line ends (Content-Disposition: attachment) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/csv": string;
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The team's members, owners first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["TeamMember"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Add an existing user (by username, email or user_id) with a role and budget */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        budget_period?: ("day" | "week" | "month") | null;
                        budget_usd?: number | null;
                        email?: string;
                        /** @description a role in the team */
                        role: "owner" | "admin" | "member" | "viewer";
                        user_id?: number;
                        username?: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["TeamMember"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Change a member's role or budget (budget_usd per budget_period; null: no cap) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                    userId: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        budget_period?: ("day" | "week" | "month") | null;
                        budget_usd?: number | null;
                        /** @description a role in the team */
                        role?: "owner" | "admin" | "member" | "viewer";
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["TeamMember"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        /** Remove a member (or leave the team); their team keys are disabled */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                    userId: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The team's plan, what each of its windows used, and the plans on sale (the team's members; admins) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["MyPlan"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Buy or renew a plan for the team from the team's wallet, charged once (the team's owners and admins; admins) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        plan_id: number;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["MyPlan"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/quota": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Top up the team's wallet, once per ref (admins; the team's owners and admins when the operator allows it) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        quota?: number;
                        quota_usd?: number;
                        /** @description names the request: the same ref credits the wallet once */
                        ref: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Team"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/redeem": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Redeem a redemption code into the team's wallet (the team's owners and admins; admins). Refusals as POST /api/user/topup; a code that grants a plan is refused and stays unused */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        key: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description the team's wallet after the credit, quota units */
                                balance: number;
                                quota: number;
                                quota_usd: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/stripe/pay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a stripe checkout that tops up the team's wallet (the team's owners and admins; admins); pay at data.url */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description in units of the top-up currency */
                        amount: number;
                        payment_method?: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                amount: number;
                                currency: string;
                                /** @description the same as url */
                                pay_link: string;
                                /** @description what the wallet is credited once paid, quota units */
                                quota: number;
                                trade_no: string;
                                /** @description where to pay */
                                url: string;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/{id}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the team's keys spent, per member and per UTC day */
        get: {
            parameters: {
                query?: {
                    /** @description unix ms (default: 30 days before to) */
                    from?: number;
                    /** @description unix ms (default: now) */
                    to?: number;
                };
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["TeamUsage"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/team/invitations/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Accept an invitation with its token: once (410 invitation_expired, 409 invitation_used) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        token: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description a role in the team */
                                role: "owner" | "admin" | "member" | "viewer";
                                team: components["schemas"]["Team"];
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List API keys (your own; admins: ?all=true or ?user_id=) */
        get: {
            parameters: {
                query?: {
                    /** @description admins: every user's keys */
                    all?: boolean;
                    keyword?: string;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                    /** @description admins: another user's keys */
                    user_id?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["Key"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Create an API key; the full key is in data.key, shown once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["KeyInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Key"] & {
                                key: string;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/token/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One API key */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Key"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Update an API key */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["KeyInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Key"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        /** Delete (revoke) an API key */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/token/{id}/callback-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make a new task callback signing secret for the key (the old one stops signing at once); shown only in this answer */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["CallbackSecret"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/token/{id}/children": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mint a child key, authenticated by the parent key itself as Bearer; its ceiling is taken out of the parent's remaining ceiling; the full key is in data.key, shown once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ChildKeyInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Key"] & {
                                key: string;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description the key's user is over their request limit */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Usage report for the dashboard: totals, a series in hour or day buckets, top groups by quota (from hourly roll-ups; ranges are whole hours) (admin) */
        get: {
            parameters: {
                query?: {
                    /** @description series bucket */
                    bucket?: "hour" | "day";
                    channel_id?: number;
                    /** @description unix ms (or s), or ISO 8601; default: to − 24 h; rounded down to the hour */
                    from?: number | string;
                    /** @description top groups by quota */
                    group_by?: "model" | "user" | "channel" | "key";
                    /** @description alias of token_id */
                    key_id?: number;
                    /** @description how many groups */
                    limit?: number;
                    model?: string;
                    /** @description unix ms (or s), or ISO 8601; default: now; at most 400 days after from */
                    to?: number | string;
                    /** @description API key id (alias key_id) */
                    token_id?: number;
                    /** @description day buckets: minutes east of UTC (UTC+8 = 480) */
                    tz_offset_minutes?: number;
                    user_id?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["UsageReport"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/usage/self": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your own usage report (same shape; no user or channel filter, group_by model or key) */
        get: {
            parameters: {
                query?: {
                    /** @description series bucket */
                    bucket?: "hour" | "day";
                    /** @description unix ms (or s), or ISO 8601; default: to − 24 h; rounded down to the hour */
                    from?: number | string;
                    /** @description top groups by quota */
                    group_by?: "model" | "key";
                    /** @description alias of token_id */
                    key_id?: number;
                    /** @description how many groups */
                    limit?: number;
                    model?: string;
                    /** @description unix ms (or s), or ISO 8601; default: now; at most 400 days after from */
                    to?: number | string;
                    /** @description API key id (alias key_id) */
                    token_id?: number;
                    /** @description day buckets: minutes east of UTC (UTC+8 = 480) */
                    tz_offset_minutes?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["UsageReport"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List users (admin) */
        get: {
            parameters: {
                query?: {
                    group?: string;
                    keyword?: string;
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                    /** @description user, admin or root */
                    role?: string;
                    /** @description enabled or disabled */
                    status?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["User"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Create a user (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["UserCreate"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["User"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One user (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["User"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Update role, group, status, password, display name (admin) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["UserUpdate"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["User"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        /** Delete a user and their keys (admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/{id}/2fa": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove every second factor of a user (a lost device) (admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/{id}/ledger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The user's ledger, newest first: every movement of the balance, with the reason of top-ups and adjustments (admin) */
        get: {
            parameters: {
                query?: {
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                };
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["LedgerEntry"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/{id}/quota": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Top up, deduct or set the balance (writes a ledger row) (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["QuotaChange"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["User"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/2fa/backup_codes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** New recovery codes, replacing the old ones (needs a current or recovery code) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 6-digit code of the authenticator app, or a recovery code (required) */
                        code?: string;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["RecoveryCodes"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/2fa/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Turn the authenticator app off (needs a current or recovery code, and the password of an account that has one) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 6-digit code of the authenticator app, or a recovery code (required) */
                        code?: string;
                        /** @description the current password */
                        password?: string;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/2fa/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Confirm the enrolment with a current code: TOTP is on; recovery codes in the answer (shown once) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 6-digit code of the authenticator app, or a recovery code (required) */
                        code?: string;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["RecoveryCodes"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/2fa/setup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start enrolling an authenticator app: a new secret and its otpauth:// URI (shown once); 409 while TOTP is on */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["TotpSetup"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description totp_already_enabled */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/2fa/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your second factors, and whether AdminRequireTwoFactor applies to you */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["TwoFactorStatus"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/cli-session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Open a command-line session: a bearer token (ghs-…, shown once, 90 days) that other logins do not end; POST /api/user/logout with it ends it */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description unix ms */
                                expires_at: number;
                                token: string;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/email/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Follow a verification link: verifies the address (and credits a starting balance waiting for it); a link works once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description the token of the link (required) */
                        token?: string;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                credited: number;
                                email: string;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid_link: the link is unknown, used or expired (or a field is invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log in; sets a session cookie and answers who logged in (GET /api/user/self has the whole account), or — for a user with a second factor — a pending-login cookie and {require_2fa, methods} (POST /api/user/login/2fa completes it) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        password?: string;
                        username?: string;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["LoginUser"] | components["schemas"]["LoginSecondFactor"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/login/2fa": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Complete a pending login (its cookie) with a code or a passkey assertion; sets the session cookie. Wrong codes count as failed logins of the address */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description startAuthentication() result */
                        assertion?: {
                            [key: string]: unknown;
                        };
                        /** @description authenticator app or recovery code */
                        code?: string;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["LoginUser"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/login/2fa/passkey-options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** WebAuthn options to complete a pending login with a passkey */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description WebAuthn options for @simplewebauthn/browser (startRegistration / startAuthentication) */
                            data: {
                                [key: string]: unknown;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log out: ends the session of the cookie (or the command-line session of the bearer token) and clears the cookie */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The models your group may call, with the prices you pay (group ratio applied) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["GroupModels"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/passkey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your passkeys */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Passkey"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/passkey/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove one of your passkeys (confirmed like every sensitive change) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Reauth"] | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/passkey/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log in with a passkey (no password); sets the session cookie */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description startAuthentication() result (required) */
                        assertion?: {
                            [key: string]: unknown;
                        };
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["LoginUser"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/passkey/login/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** WebAuthn options of a login without a password (any passkey of this site, with user verification) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description WebAuthn options for @simplewebauthn/browser (startRegistration / startAuthentication) */
                            data: {
                                [key: string]: unknown;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/passkey/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Register a passkey from the startRegistration() result; the first second factor also brings recovery codes (shown once) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name?: string;
                        /** @description startRegistration() result (required) */
                        response?: {
                            [key: string]: unknown;
                        };
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                passkey: components["schemas"]["Passkey"];
                                recovery_codes: string[];
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/passkey/register/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** WebAuthn options to register a passkey (needs PUBLIC_URL: 503 otherwise) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description WebAuthn options for @simplewebauthn/browser (startRegistration / startAuthentication) */
                            data: {
                                [key: string]: unknown;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description PUBLIC_URL is not set */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/password/forgot": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ask for a password reset link; the same answer whether or not an account has the address */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description required */
                        email?: string;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many sign-ups or mails asked for from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description email_not_configured: SMTP_URL or ServerAddress is not set */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/password/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Follow a reset link with a new password: every session and the personal access token end; the link works once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 8-256 characters (required) */
                        password?: string;
                        /** @description required */
                        token?: string;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid_link: the link is unknown, used or expired (or a field is invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your payments, newest first */
        get: {
            parameters: {
                query?: {
                    /** @description 1-based page */
                    page?: number;
                    /** @description rows per page */
                    page_size?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                items: components["schemas"]["Payment"][];
                                page: number;
                                page_size: number;
                                total: number;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/payments/{trade_no}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One of your payments */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    trade_no: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Payment"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your plan, what each window used, and the plans on sale */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["MyPlan"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Buy or renew a plan from your balance (charged once) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        plan_id: number;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["MyPlan"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/plan/{provider}/pay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a provider's checkout of a plan: once, or recurring (a subscription) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description e.g. stripe */
                    provider: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        plan_id: number;
                        recurring?: boolean;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["PlanCheckout"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/reauth/passkey-options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** WebAuthn options of a passkey assertion that confirms a sensitive change (accounts without a password) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description WebAuthn options for @simplewebauthn/browser (startRegistration / startAuthentication) */
                            data: {
                                [key: string]: unknown;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create your own account (New API path). 403 signup_disabled when sign-up is off; 403 on a missing or wrong invitation_code; 409 for a taken username or e-mail address */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description ignored (New API compatibility) */
                        aff_code?: string;
                        /** @description required when SignupEmailVerification is on */
                        email?: string;
                        /** @description required when SignupInvitationCode is set */
                        invitation_code?: string;
                        /** @description 8-256 characters (required) */
                        password?: string;
                        /** @description required */
                        username?: string;
                        /** @description ignored (New API compatibility) */
                        verification_code?: string;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description starting balance credited now (quota units) */
                                credited: number;
                                email: string | null;
                                id: number;
                                username: string;
                                /** @description a verification link was mailed */
                                verification_sent: boolean;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description the username or e-mail address is taken */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many sign-ups or mails asked for from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description email_not_configured: SMTP_URL or ServerAddress is not set */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/self": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The logged-in user with balance (quota, quota_usd), used_quota and request_count; the public address (PUBLIC_URL) and quota units per USD; how it confirms a sensitive change */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["SelfUser"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/self/alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your low-balance alert settings */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AlertSettings"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        /** Set your low-balance threshold, e-mail and webhook (fields not given are kept); a generated webhook secret is in the answer once */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["AlertSettingsInput"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AlertSettings"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/self/email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your e-mail address and whether it is verified (null: none) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                email: string;
                                verified: boolean;
                            } | null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        /** Set your e-mail address (or keep it when omitted) and mail a verification link to it */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        assertion?: {
                            [key: string]: unknown;
                        };
                        code?: string;
                        /** @description a bare address (name@example.com); kept in lower case */
                        email?: string;
                        /** @description confirms a new address (Reauth); not needed to mail the link again to the same one */
                        password?: string;
                    } | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                email: string;
                                verified: boolean;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description the address is already verified, or belongs to another account */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many sign-ups or mails asked for from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description email_not_configured: SMTP_URL or ServerAddress is not set */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/self/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Change your password (the current one is checked; an account without one confirms with a second factor); your other sessions and your personal access token are revoked, this session stays. A wrong old_password is a 400, and counts as a failed login of the address */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PasswordChange"] | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Sign-up settings for the console: whether sign-up is on, needs an invitation code or an e-mail address, and whether mail can be sent */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                email_configured: boolean;
                                email_required: boolean;
                                enabled: boolean;
                                invitation_required: boolean;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/sso": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The enabled providers, each with its link to your account (null: not linked) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["SsoLink"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/sso/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Unlink a provider from your account (confirmed, Reauth) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description provider id */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Reauth"] | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: null;
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/sso/{id}/link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Link a provider to your account: confirmed with your password and your second factor (Reauth); the answer's url is the provider's page to send the browser to (a flow cookie is set), whose callback links the sign-in and returns to /profile?sso_linked={id} */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description provider id */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Reauth"] | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                url: string;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/stripe/pay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a Stripe Checkout for an amount of the top-up currency; pay at data.url */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description in units of the currency (e.g. 5 or 5.50) */
                        amount: number | string;
                        /** @description ignored (New API compatibility) */
                        payment_method?: unknown;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Checkout"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too many checkouts started by this user (TopupCheckoutLimit; Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description payment_provider_error: the provider refused to start the checkout */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The teams you belong to, with your role in each */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Team"][];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Issue a personal access token (shown once) for scripts and the CLI, replacing the old one; confirmed (Reauth) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Reauth"] | null;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                access_token: string;
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too_many_attempts: too many failed logins from this address (Retry-After: seconds) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/topup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Redeem a code: credited once. 400 invalid_code / code_used / code_disabled / code_expired; 429 after too many unknown codes */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description the code */
                        key: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Redeemed"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description too many unknown codes from this user or address (Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/topup/info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Online top-up settings: currency, rate, limits, configured providers */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["TopupInfo"];
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description invalid input; the message and `field` name the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers (no I/O) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description alive */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            ok: true;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** MCP endpoint (streamable HTTP, stateless): tools/list and tools/call of the tools the key allows */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        id?: string | number;
                        jsonrpc: string;
                        method: string;
                        params?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pg/chat/completions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Playground chat completion with the login session; billed to the user */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ChatCompletionRequest"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ChatCompletion"];
                    };
                };
                /** @description invalid input; the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not logged in */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description role too low */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: database reachable, Redis when configured, plugin runtime built, not shutting down */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description ready */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Readiness"];
                    };
                };
                /** @description not ready; checks and errors say why */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Readiness"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chat/completions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Chat completion (stream: true gives text/event-stream) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ChatCompletionRequest"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ChatCompletion"];
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
                /** @description rate_limit_exceeded (a rate limit or request limit; Retry-After) or insufficient_quota (the balance, a key's cap or a budget) */
                429: {
                    headers: {
                        /** @description seconds until the limit admits the call again */
                        "retry-after"?: unknown;
                        /** @description calls in flight allowed at once */
                        "x-ratelimit-limit-concurrency"?: unknown;
                        /** @description requests per minute of the scope closest to its limit (also on successful answers of limited calls) */
                        "x-ratelimit-limit-requests"?: unknown;
                        /** @description tokens per minute (input + output) of the scope closest to its limit */
                        "x-ratelimit-limit-tokens"?: unknown;
                        /** @description calls in flight still allowed */
                        "x-ratelimit-remaining-concurrency"?: unknown;
                        /** @description requests left in its minute */
                        "x-ratelimit-remaining-requests"?: unknown;
                        /** @description tokens left in its minute, after the estimates of calls in flight */
                        "x-ratelimit-remaining-tokens"?: unknown;
                        /** @description when its minute ends, e.g. 41.5s or 1m0s */
                        "x-ratelimit-reset-requests"?: unknown;
                        /** @description when its minute ends */
                        "x-ratelimit-reset-tokens"?: unknown;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/completions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Text completion */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CompletionRequest"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Completion"];
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
                /** @description rate_limit_exceeded (a rate limit or request limit; Retry-After) or insufficient_quota (the balance, a key's cap or a budget) */
                429: {
                    headers: {
                        /** @description seconds until the limit admits the call again */
                        "retry-after"?: unknown;
                        /** @description calls in flight allowed at once */
                        "x-ratelimit-limit-concurrency"?: unknown;
                        /** @description requests per minute of the scope closest to its limit (also on successful answers of limited calls) */
                        "x-ratelimit-limit-requests"?: unknown;
                        /** @description tokens per minute (input + output) of the scope closest to its limit */
                        "x-ratelimit-limit-tokens"?: unknown;
                        /** @description calls in flight still allowed */
                        "x-ratelimit-remaining-concurrency"?: unknown;
                        /** @description requests left in its minute */
                        "x-ratelimit-remaining-requests"?: unknown;
                        /** @description tokens left in its minute, after the estimates of calls in flight */
                        "x-ratelimit-remaining-tokens"?: unknown;
                        /** @description when its minute ends, e.g. 41.5s or 1m0s */
                        "x-ratelimit-reset-requests"?: unknown;
                        /** @description when its minute ends */
                        "x-ratelimit-reset-tokens"?: unknown;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/embeddings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Embeddings */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["EmbeddingRequest"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["EmbeddingList"];
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
                /** @description rate_limit_exceeded (a rate limit or request limit; Retry-After) or insufficient_quota (the balance, a key's cap or a budget) */
                429: {
                    headers: {
                        /** @description seconds until the limit admits the call again */
                        "retry-after"?: unknown;
                        /** @description calls in flight allowed at once */
                        "x-ratelimit-limit-concurrency"?: unknown;
                        /** @description requests per minute of the scope closest to its limit (also on successful answers of limited calls) */
                        "x-ratelimit-limit-requests"?: unknown;
                        /** @description tokens per minute (input + output) of the scope closest to its limit */
                        "x-ratelimit-limit-tokens"?: unknown;
                        /** @description calls in flight still allowed */
                        "x-ratelimit-remaining-concurrency"?: unknown;
                        /** @description requests left in its minute */
                        "x-ratelimit-remaining-requests"?: unknown;
                        /** @description tokens left in its minute, after the estimates of calls in flight */
                        "x-ratelimit-remaining-tokens"?: unknown;
                        /** @description when its minute ends, e.g. 41.5s or 1m0s */
                        "x-ratelimit-reset-requests"?: unknown;
                        /** @description when its minute ends */
                        "x-ratelimit-reset-tokens"?: unknown;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Messages-style API (key in x-api-key or Bearer; requires model, max_tokens, messages) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        max_tokens: number;
                        messages: Record<string, unknown>[];
                        model: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": Record<string, unknown>;
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/count_tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Prompt tokens counted locally ({input_tokens}); no charge */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        messages: Record<string, unknown>[];
                        model: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            input_tokens?: number;
                        };
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Models this key may use */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ModelList"];
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models/{model}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One model (404 model_not_found when absent) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    model: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Model"];
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One of your tasks ({id} is the public task id), with its callback delivery when it has one */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["TaskView"];
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        put?: never;
        /** Submit a task to the plugin {id} (JSON or multipart); X-Callback-URL (or the key's callback_url) gets the task view POSTed when it ends */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description task completion callback; also accepted on /v1/videos, /v1/images/*, /v1/responses and plugin native submit routes */
                    "X-Callback-URL"?: string;
                };
                path: {
                    /** @description POST: the plugin key; GET: the public task id task_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        model: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            created_at?: number;
                            id?: string;
                            model?: string;
                            status?: string;
                            task_id?: string;
                        };
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1beta/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Gemini-style model list ({models, nextPageToken}; pageSize, pageToken) */
        get: {
            parameters: {
                query?: {
                    pageSize?: number;
                    pageToken?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": Record<string, unknown>;
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1beta/models/{model}:{action}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Gemini-native action: generateContent, streamGenerateContent (?alt=sse), countTokens, embedContent, batchEmbedContents (key in ?key= or x-goog-api-key); also under /v1/models */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    action: string;
                    model: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": Record<string, unknown>;
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": Record<string, unknown>;
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1beta/openai/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** OpenAI-style model list */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ModelList"];
                    };
                };
                /** @description invalid API key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenAIError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AdminError: {
            data: null;
            /** @description the input field a 400 is about, when known */
            field?: string;
            message: string;
            /** @enum {boolean} */
            success: false;
        };
        AdminTask: {
            action: string;
            /** @enum {string} */
            billing_status: "none" | "reserving" | "reserved" | "settled" | "refunded";
            channel_id: number | null;
            /** @description unix ms */
            created_at: number;
            fail_reason: string | null;
            finished_at: number | null;
            flag_reason: string | null;
            /** @description an administrator must decide (submit outcome unknown) */
            flagged: boolean;
            group: string;
            key_id: number | null;
            model: string;
            next_poll_at: number | null;
            plugin: string;
            plugin_version: string;
            poll_failures: number;
            /** @description e.g. 30% */
            progress: string;
            quota_final: number | null;
            quota_reserved: number;
            retained: boolean;
            started_at: number | null;
            /** @enum {string} */
            status: "NOT_START" | "SUBMITTED" | "QUEUED" | "IN_PROGRESS" | "SUCCESS" | "FAILURE" | "UNKNOWN";
            submitted_at: number | null;
            /** @description public id task_… */
            task_id: string;
            updated_at: number;
            upstream_model: string;
            upstream_task_id: string | null;
            user_id: number;
            username: string | null;
        };
        AdminTaskDetail: {
            action: string;
            /** @enum {string} */
            billing_status: "none" | "reserving" | "reserved" | "settled" | "refunded";
            callback: {
                attempts: number;
                delivered_at: number | null;
                /** @description dlv_…: the same on every attempt (X-Delivery-Id) */
                delivery_id: string;
                /** @description the latest attempts (up to 20) */
                history: {
                    at: number;
                    duration_ms: number;
                    error: string | null;
                    status: number | null;
                }[];
                last_attempt_at: number | null;
                last_error: string | null;
                last_status: number | null;
                next_attempt_at: number | null;
                /**
                 * @description waiting: the task is not finished; pending: due or retrying; delivered; failed: given up; skipped: the result was not kept
                 * @enum {string}
                 */
                status: "waiting" | "pending" | "delivered" | "failed" | "skipped";
                url: string;
            } | null;
            channel_id: number | null;
            /** @description unix ms */
            created_at: number;
            fail_reason: string | null;
            finished_at: number | null;
            flag_reason: string | null;
            /** @description an administrator must decide (submit outcome unknown) */
            flagged: boolean;
            group: string;
            key_id: number | null;
            /** @description ledger movements of task:<id> by kind (reserve, close, settle | refund) */
            ledger: {
                [key: string]: number;
            };
            model: string;
            next_poll_at: number | null;
            plugin: string;
            plugin_version: string;
            poll_failures: number;
            /** @description e.g. 30% */
            progress: string;
            quota_final: number | null;
            quota_reserved: number;
            retained: boolean;
            started_at: number | null;
            /** @enum {string} */
            status: "NOT_START" | "SUBMITTED" | "QUEUED" | "IN_PROGRESS" | "SUCCESS" | "FAILURE" | "UNKNOWN";
            submitted_at: number | null;
            /** @description public id task_… */
            task_id: string;
            updated_at: number;
            upstream_model: string;
            upstream_task_id: string | null;
            user_id: number;
            username: string | null;
        };
        Alert: {
            attempts: number;
            created_at: number;
            delivered_at: number | null;
            /** @description the idempotency id of every attempt */
            id: string;
            kind: string;
            last_error: string | null;
            next_attempt_at: number;
            /** @description what the webhook receives (AlertEvent) */
            payload: unknown;
            /** @enum {string} */
            status: "pending" | "delivered" | "failed";
            /** @description operator or user:<id> */
            target: string;
            /** @enum {string} */
            transport: "webhook" | "email";
        };
        AlertEvent: {
            /** @description unix ms */
            created_at: number;
            data: {
                [key: string]: unknown;
            };
            id: string;
            kind: string;
            summary: string;
            /** @description operator or user:<id> */
            target: string;
        };
        AlertSettings: {
            email: string | null;
            /** @description the balance is below the threshold and the alert was sent */
            low_balance_alerted: boolean;
            /** @description quota units; 0 = off */
            low_balance_threshold: number;
            low_balance_threshold_usd: number;
            /** @description the webhook signing secret: only in the answer that generated it */
            webhook_secret?: string;
            webhook_secret_set: boolean;
            webhook_url: string | null;
        };
        AlertSettingsInput: {
            /** @description needs SMTP_URL on the gateway */
            email?: string | null;
            /** @description quota units; 0 = off */
            low_balance_threshold?: number | string | null;
            /** @description alternative to low_balance_threshold */
            low_balance_threshold_usd?: number | string | null;
            /** @description at least 16 characters; generated (and shown once) when a webhook has none */
            webhook_secret?: string | null;
            /** @description http(s) URL on a public address */
            webhook_url?: string | null;
        };
        AuditEntry: {
            /** @description <target type>.<verb>, e.g. user.update, channel.key_disable, option.set */
            action: string;
            /** @description username, or system */
            actor: string;
            actor_id: number | null;
            actor_role: string;
            /** @description unix ms */
            created_at: number;
            /** @description changed fields: {field: {before?, after?}}; secrets are [redacted] */
            diff: {
                [key: string]: {
                    after?: unknown;
                    before?: unknown;
                };
            };
            id: number;
            target_id: string;
            target_name: string | null;
            target_type: string;
        };
        CallbackSecret: {
            /** @description whsec_…: signs task callbacks (X-Signature: sha256=<hex HMAC-SHA256 of the body>); shown only here */
            callback_secret: string;
        };
        CatalogEntry: {
            /** @description the day the page gave these prices (YYYY-MM-DD) */
            as_of: string;
            cache_write_1h?: number;
            cache_write_5m?: number;
            cached_input?: number;
            input: number;
            model: string;
            note?: string;
            output: number;
            /** @description the price book has a price for the model */
            priced: boolean;
            /** @description tiers, modality prices, web_search, service_tiers (the fields of a price) */
            rules?: {
                /** @description USD per 1M audio input tokens (default: input) */
                audio_input?: number;
                /** @description USD per 1M audio output tokens (default: output) */
                audio_output?: number;
                /** @description USD per 1M image input tokens (default: input) */
                image_input?: number;
                /** @description USD per 1M image output tokens (default: output) */
                image_output?: number;
                /** @description USD per 1M reasoning tokens (default: output) */
                reasoning?: number;
                /** @description USD per 1,000 calls, by server tool */
                server_tools?: {
                    [key: string]: number;
                };
                /** @description multiplier of the token cost by the service tier the upstream reports */
                service_tiers?: {
                    [key: string]: number;
                };
                /** @description context tiers: the whole call at the rates of the highest tier its input exceeds */
                tiers?: {
                    above_input_tokens: number;
                    cache_write_1h?: number | null;
                    cache_write_5m?: number | null;
                    cached_input?: number | null;
                    input: number;
                    output: number;
                }[];
                /** @description USD per 1,000 web searches the upstream reports */
                web_search?: number;
            };
            /** @description the vendor's price page */
            source: string;
            /** @description the channel type or preset whose vendor lists the price */
            vendor: string;
        };
        CatalogImport: {
            imported: string[];
            kept: string[];
        };
        Channel: {
            balance: number | null;
            balance_updated_at: number | null;
            base_url: string;
            /** @description what the operator pays the vendor relative to list prices (the upstream cost of its calls) */
            cost_ratio: number;
            created_at: number;
            groups: string[];
            header_override: {
                [key: string]: unknown;
            };
            id: number;
            key_count: number;
            /** @enum {string} */
            key_mode: "random" | "round_robin";
            /** @description hints and state only; key values are never returned */
            keys: components["schemas"]["ChannelKey"][];
            /** @description the stored keys cannot be decrypted (CRYPTO_SECRET differs from the one that sealed them) */
            keys_error?: string;
            last_test: components["schemas"]["ChannelTestAll"] | null;
            /** @description calls in flight above which the relay skips the channel (0: no cap) */
            max_concurrency: number;
            /** @description estimated prompt tokens above which the relay skips the channel (0: no cap) */
            max_input_tokens: number;
            model_mapping: {
                [key: string]: unknown;
            };
            models: string[];
            name: string;
            param_override: {
                [key: string]: unknown;
            };
            priority: number;
            response_time_ms: number | null;
            /** @description openai: preset; azure: api_version; vertex: region, project_id; bedrock: region (of Bedrock API keys); task_plugin: plugin; gateway: plugins */
            settings: {
                [key: string]: unknown;
            };
            /** @enum {string} */
            status: "enabled" | "disabled" | "auto_disabled";
            status_reason: string | null;
            tag: string | null;
            test_model: string | null;
            tested_at: number | null;
            /** @description 1 openai, 3 azure, 14 anthropic, 24 gemini, 33 bedrock, 41 vertex, 60 gateway, 61 task_plugin */
            type: number;
            type_name: string;
            updated_at: number;
            weight: number;
        };
        ChannelInput: {
            base_url?: string;
            /** @description what the operator pays the vendor relative to list prices (0.8: a fifth off); 1 when not given */
            cost_ratio?: number;
            groups?: string[] | string;
            header_override?: {
                [key: string]: unknown;
            };
            /** @description random or round_robin */
            key_mode?: string;
            /** @description a list, or newline-separated text; absent on update = keep the stored keys */
            keys?: string[] | string;
            max_concurrency?: number;
            max_input_tokens?: number;
            /** @description model → upstream model */
            model_mapping?: {
                [key: string]: unknown;
            };
            models?: string[] | string;
            name?: string;
            param_override?: {
                [key: string]: unknown;
            };
            priority?: number;
            settings?: {
                [key: string]: unknown;
            };
            /** @description enabled, disabled or auto_disabled (or 1, 2, 3) */
            status?: string | number;
            status_reason?: string | null;
            tag?: string | null;
            test_model?: string | null;
            /** @description a number or openai, azure, anthropic, gemini, bedrock, vertex, gateway, task_plugin */
            type?: number | string;
            weight?: number;
        };
        ChannelKey: {
            at: number | null;
            hint: string;
            index: number;
            reason: string | null;
            /** @enum {string} */
            status: "enabled" | "disabled" | "auto_disabled";
        };
        ChannelTestAll: {
            at: number;
            results: {
                message: string;
                model: string;
                ok: boolean;
                /** @description upstream HTTP status; 0: no answer */
                status: number;
                time_ms: number;
            }[];
        };
        ChatCompletion: {
            choices?: Record<string, unknown>[];
            created?: number;
            id?: string;
            model?: string;
            /** @enum {unknown} */
            object?: "chat.completion";
            usage?: components["schemas"]["Usage"];
        };
        ChatCompletionRequest: {
            max_tokens?: number;
            messages: {
                content?: string | Record<string, unknown>[];
                role: string;
            }[];
            model: string;
            stream?: boolean;
            stream_options?: {
                include_usage?: boolean;
            };
            temperature?: number;
            tools?: Record<string, unknown>[];
        };
        Checkout: {
            amount: number;
            currency: string;
            /** @description the same as url */
            pay_link: string;
            quota: number;
            trade_no: string;
            /** @description where to pay */
            url: string;
        };
        ChildKeyInput: {
            expires_at?: (number | string) | null;
            /** @description the child key's lifetime ceiling in USD, taken out of the parent's remaining ceiling */
            max_spend_usd: number;
            /** @description a subset of the parent's models (default: the parent's) */
            models?: string[];
            name: string;
        };
        Completion: {
            choices?: Record<string, unknown>[];
            created?: number;
            id?: string;
            model?: string;
            /** @enum {unknown} */
            object?: "text_completion";
            usage?: components["schemas"]["Usage"];
        };
        CompletionRequest: {
            max_tokens?: number;
            model: string;
            prompt: string | string[];
            stream?: boolean;
        };
        EmbeddingList: {
            data?: {
                embedding?: number[] | string;
                index?: number;
                object?: string;
            }[];
            model?: string;
            /** @enum {unknown} */
            object?: "list";
            usage?: components["schemas"]["Usage"];
        };
        EmbeddingRequest: {
            dimensions?: number;
            encoding_format?: string;
            input: string | string[] | number[] | number[][];
            model?: string;
        };
        GroupModelPrice: {
            cache_write_1h: number | null;
            cache_write_5m: number | null;
            cached_input: number | null;
            input: number | null;
            model: string;
            output: number | null;
            per_request: number | null;
            /** @description false: the price book has no price for it */
            priced: boolean;
        };
        GroupModels: {
            group: string;
            group_ratio: number;
            items: components["schemas"]["GroupModelPrice"][];
        };
        GroupRatio: {
            group: string;
            ratio: number;
        };
        Key: {
            accessed_at: number | null;
            allowed_ips: string[] | null;
            budget: number | null;
            budget_period: ("day" | "week" | "month") | null;
            budget_resets_at: number | null;
            budget_spent: number | null;
            budget_spent_usd: number | null;
            budget_usd: number | null;
            /** @description whether the key has a callback signing secret (shown once, when made) */
            callback_secret_set: boolean;
            callback_url: string | null;
            created_at: number;
            expires_at: number | null;
            group: string | null;
            /** @description sk-ab…wxyz */
            hint: string;
            id: number;
            max_concurrency: number | null;
            max_spend_usd: number | null;
            mcp_tools: string[] | null;
            models: string[] | null;
            name: string;
            remain_quota: number;
            remain_quota_usd: number;
            rpm: number | null;
            status: "enabled" | "disabled" | "expired" | "exhausted";
            team_id: number | null;
            tpm: number | null;
            unlimited_quota: boolean;
            used_quota: number;
            user_id: number;
            username?: string;
        };
        KeyInput: {
            allowed_ips?: string[] | null;
            budget?: number | null;
            budget_period?: ("day" | "week" | "month") | null;
            budget_usd?: number | null;
            callback_url?: string | null;
            expires_at?: (number | string) | null;
            group?: string | null;
            /** @description fixed key value sk-… (admins only) */
            key?: string;
            max_concurrency?: number | null;
            max_spend_usd?: number | null;
            mcp_tools?: string[] | null;
            models?: string[] | null;
            name?: string;
            quota?: number | null;
            quota_usd?: number | null;
            rpm?: number | null;
            status?: "enabled" | "disabled";
            tpm?: number | null;
            unlimited_quota?: boolean;
            /** @description owner (admins only; default: yourself) */
            user_id?: number;
        };
        LedgerEntry: {
            /** @description signed change of the balance in quota units */
            change: number;
            change_usd: number;
            /** @description unix ms */
            created_at: number;
            id: number;
            key_id: number | null;
            /** @description reserve | extend:<n> | settle | refund | topup | adjust | charge | spend */
            kind: string;
            note: string | null;
            /** @description request id, task id or top-up id */
            ref: string;
        };
        Log: {
            attempts: number;
            /** @description what the cache reads saved against the uncached input price (quota units) */
            cache_saving_quota: number;
            /** @description what the cache writes cost (quota units, at the prices of the call) */
            cache_write_quota: number;
            cache_write_tokens: number;
            cached_tokens: number;
            channel_id?: number | null;
            channel_name?: string | null;
            completion_tokens: number;
            content: string | null;
            created_at: number;
            endpoint: string | null;
            first_byte_ms: number | null;
            group_name: string | null;
            id: number;
            is_stream: number;
            key_id: number | null;
            key_name: string | null;
            latency_ms: number;
            model: string | null;
            prompt_tokens: number;
            quota: number;
            request_id: string;
            status_code: number | null;
            type: string;
            user_id: number | null;
            username: string | null;
        } & {
            [key: string]: unknown;
        };
        LoginSecondFactor: {
            methods: ("totp" | "passkey" | "recovery_code")[];
            /** @enum {boolean} */
            require_2fa: true;
        };
        LoginUser: {
            group: string;
            id: number;
            /**
             * @description an admin without a second factor where AdminRequireTwoFactor is on: set one up first
             * @enum {boolean}
             */
            require_2fa_setup?: true;
            role: "user" | "admin" | "root";
            username: string;
        };
        LogPage: {
            items: components["schemas"]["Log"][];
            next_cursor: string | null;
            page: number;
            page_size: number;
            /** @description rows the filter matches, counted up to 10,000 (see totals_capped) */
            total: number;
            totals: components["schemas"]["LogTotals"];
            /** @description the filter matches more than 10,000 rows: total and totals are those of the newest 10,000 */
            totals_capped: boolean;
        };
        LogTotals: {
            /** @description model calls and task submissions among them */
            calls: number;
            completion_tokens: number;
            /** @description rows of the filter */
            count: number;
            /** @description their net amount (quota units; a deduction is negative) */
            moved_quota: number;
            /** @description top-ups, adjustments and system credits among them */
            movements: number;
            prompt_tokens: number;
            /** @description what those calls spent (quota units) */
            quota: number;
        };
        MarketIndex: {
            /** @enum {number} */
            indexVersion: 1;
            name?: string;
            plugins: ({
                iconFile?: {
                    path: string;
                    sha256: string;
                } & {
                    [key: string]: unknown;
                };
                key: string;
                latest?: string;
                name?: string;
                versions: ({
                    kind?: string;
                    minApiVersion?: number;
                    path: string;
                    sha256: string;
                    version: string;
                } & {
                    [key: string]: unknown;
                })[];
            } & {
                [key: string]: unknown;
            })[];
        } & {
            [key: string]: unknown;
        };
        MarketSource: {
            /** @description http(s) URL of an index.json */
            index_url: string;
            name: string;
        };
        McpServer: {
            created_at: number;
            description: string | null;
            enabled: boolean;
            groups: string[] | null;
            /** @description names of the headers sent upstream (their values are never returned) */
            header_names: string[];
            /** @description the tools' namespace: <name>__<tool> */
            name: string;
            oauth: {
                client_id: string;
                client_secret_set: boolean;
                issuer: string | null;
                scope: string | null;
            } | null;
            tools: string[] | null;
            updated_at: number;
            url: string;
        };
        McpServerInput: {
            description?: string | null;
            enabled?: boolean;
            groups?: (string[] | string) | null;
            headers?: {
                [key: string]: string;
            } | null;
            /** @description create only: a-z, 0-9, - */
            name?: string;
            oauth?: {
                client_id: string;
                /** @description write only */
                client_secret: string;
                issuer?: string;
                scope?: string;
            } | null;
            tools?: (string[] | string) | null;
            url?: string;
        };
        McpTool: {
            description?: string;
            inputSchema: {
                [key: string]: unknown;
            };
            name: string;
            title?: string;
        } & {
            [key: string]: unknown;
        };
        Model: {
            created?: number;
            id?: string;
            /** @enum {unknown} */
            object?: "model";
            owned_by?: string;
        };
        ModelList: {
            data?: components["schemas"]["Model"][];
            /** @enum {unknown} */
            object?: "list";
        };
        MyPlan: {
            /** @description GET only */
            on_sale?: components["schemas"]["Plan"][];
            plan: components["schemas"]["Plan"] | null;
            subscription: {
                expires_at: number;
                started_at: number;
                stripe_subscription: string | null;
            } | null;
            windows: {
                clears_at: number | null;
                every: string;
                quota: number;
                quota_usd: number;
                resets_at: number | null;
                /** @description unix ms: now minus `every` (the rolling window's start) */
                started_at: number;
                /** @description what the last `every` spent (calls in flight counted at their reserve) */
                used: number;
                used_usd: number;
            }[];
        };
        OpenAIError: {
            error?: {
                code?: string | null;
                message?: string;
                param?: string | null;
                type?: string;
            };
        };
        Option: {
            /** @description the value is the default (not in the options table) */
            default: boolean;
            /** @description what the option does (options this node knows) */
            doc?: string;
            key: string;
            /**
             * @description how the value is read
             * @enum {string}
             */
            type: "string" | "int" | "number" | "bool" | "int_list" | "text_list" | "url" | "group_counts" | "secret" | "model_limits" | "group_model_limits" | "guardrails" | "routing" | "model_fallbacks";
            unit: ("seconds" | "minutes" | "hours" | "quota") | null;
            /** @description a secret option shows [set] when one is stored */
            value: string;
        };
        OptionChange: {
            key?: string;
            options?: {
                [key: string]: unknown;
            };
            /** @description text, or a number, boolean or list the option reads */
            value?: unknown;
        };
        /** @description no upstream ids, no channels */
        OwnTask: {
            action: string;
            /** @enum {string} */
            billing_status: "none" | "reserving" | "reserved" | "settled" | "refunded";
            /** @description unix ms */
            created_at: number;
            fail_reason: string | null;
            finished_at: number | null;
            /** @description an administrator must decide (submit outcome unknown) */
            flagged: boolean;
            model: string;
            plugin: string;
            /** @description e.g. 30% */
            progress: string;
            quota_final: number | null;
            quota_reserved: number;
            started_at: number | null;
            /** @enum {string} */
            status: "NOT_START" | "SUBMITTED" | "QUEUED" | "IN_PROGRESS" | "SUCCESS" | "FAILURE" | "UNKNOWN";
            /** @description public id task_… */
            task_id: string;
            updated_at: number;
        };
        OwnTaskDetail: {
            action: string;
            /** @enum {string} */
            billing_status: "none" | "reserving" | "reserved" | "settled" | "refunded";
            callback: {
                attempts: number;
                delivered_at: number | null;
                /** @description dlv_…: the same on every attempt (X-Delivery-Id) */
                delivery_id: string;
                /** @description the latest attempts (up to 20) */
                history: {
                    at: number;
                    duration_ms: number;
                    error: string | null;
                    status: number | null;
                }[];
                last_attempt_at: number | null;
                last_error: string | null;
                last_status: number | null;
                next_attempt_at: number | null;
                /**
                 * @description waiting: the task is not finished; pending: due or retrying; delivered; failed: given up; skipped: the result was not kept
                 * @enum {string}
                 */
                status: "waiting" | "pending" | "delivered" | "failed" | "skipped";
                url: string;
            } | null;
            /** @description unix ms */
            created_at: number;
            fail_reason: string | null;
            finished_at: number | null;
            /** @description an administrator must decide (submit outcome unknown) */
            flagged: boolean;
            model: string;
            plugin: string;
            /** @description e.g. 30% */
            progress: string;
            quota_final: number | null;
            quota_reserved: number;
            started_at: number | null;
            /** @enum {string} */
            status: "NOT_START" | "SUBMITTED" | "QUEUED" | "IN_PROGRESS" | "SUCCESS" | "FAILURE" | "UNKNOWN";
            /** @description public id task_… */
            task_id: string;
            updated_at: number;
        };
        Passkey: {
            /** @description unix ms */
            created_at: number;
            id: number;
            last_used_at: number | null;
            name: string;
        };
        PasswordChange: {
            /** @description an account without a password: a passkey assertion */
            assertion?: {
                [key: string]: unknown;
            };
            /** @description an account without a password: a code of its authenticator app, or a recovery code */
            code?: string;
            /** @description 8-256 characters, not the current one (required) */
            new_password?: string;
            /** @description the current password (an account without one confirms with code or assertion instead) */
            old_password?: string;
        };
        Payment: {
            /** @description in units of the currency */
            amount: number;
            created_at: number;
            currency: string;
            id: number;
            paid_at: number | null;
            provider: string;
            quota: number;
            quota_usd: number;
            /** @enum {string} */
            status: "pending" | "paid" | "expired";
            trade_no: string;
        };
        Plan: {
            created_at: number;
            /** @description how long one purchase lasts */
            duration_days: number;
            enabled: boolean;
            id: number;
            models: string[] | null;
            name: string;
            /** @description what a call past a window gets */
            overflow: "refuse" | "balance";
            price_quota: number;
            price_usd: number;
            /** @description running subscriptions (lists only) */
            subscribers?: number;
            updated_at: number;
            windows: {
                /** @description 30m, 5h, 7d, 1w */
                every: string;
                /** @description quota units per window */
                quota: number;
                quota_usd: number;
            }[];
        };
        PlanCheckout: {
            amount: number;
            currency: string;
            recurring: boolean;
            trade_no: string;
            /** @description where to pay */
            url: string;
        };
        PlanInput: {
            /** @description default 30 */
            duration_days?: number;
            enabled?: boolean;
            /** @description PUT /api/plan only */
            id?: number;
            models?: string[];
            name?: string;
            /** @description what a call past a window gets */
            overflow?: "refuse" | "balance";
            price_quota?: number;
            price_usd?: number;
            /** @description 1 to 8 windows */
            windows?: {
                every: string;
                quota?: number;
                quota_usd?: number;
            }[];
        };
        PlanSubscriber: {
            expires_at: number;
            started_at: number;
            stripe_subscription: string | null;
            team_id: number | null;
            team_name: string | null;
            /** @description 0 for a team */
            user_id: number;
            /** @description empty for a team */
            username: string;
        };
        PluginDetail: {
            active_version: string | null;
            enabled: boolean;
            has_icon: boolean;
            key: string;
            layer: string;
            meta: components["schemas"]["PluginManifest"] | null;
            normalized_meta: {
                [key: string]: unknown;
            } | null;
            plugin_source: string | null;
            remark: string;
            runtime_error: string | null;
            source: string;
            source_hash: string | null;
            uploaded_at: number | null;
            version: string | null;
        };
        PluginInUse: {
            data: {
                channels: {
                    id: number;
                    name: string;
                    /** @description 1 enabled, 2 disabled, 3 auto-disabled */
                    status: number;
                    type: number;
                    /** @enum {string} */
                    via: "key" | "peer" | "channel_type";
                }[];
                in_flight_count: number;
            };
            message: string;
            /** @enum {boolean} */
            success: false;
        };
        /** @description the plugin's `meta` as uploaded (see the plugin SDK's manifest JSON Schema) */
        PluginManifest: {
            [key: string]: unknown;
        };
        PluginRuntimeStatus: {
            current_generation: number;
            database_error?: string;
            database_revision: number | null;
            generation_published_at: number | null;
            last_rebuild: {
                attempted_at: number | null;
                database_revision: number;
                error?: string;
                generation: number;
                plugin_error_count: number;
                /** @enum {string} */
                status: "never" | "success" | "partial" | "failed";
            };
            plugin_errors: {
                [key: string]: string;
            };
            plugins: {
                [key: string]: {
                    pool: {
                        [key: string]: unknown;
                    };
                    sha256: string;
                    version: string;
                };
            };
        };
        PluginStatusChange: {
            disabled_channels: number[];
            plugin_enabled: boolean;
            unbound_channels: number[];
        };
        PluginSummary: {
            active: boolean;
            active_version: string | null;
            channel_count: number;
            enabled: boolean;
            has_icon: boolean;
            in_flight_count: number;
            key: string;
            layer: string;
            meta: components["schemas"]["PluginManifest"] | null;
            remark: string;
            runtime_error?: string;
            /**
             * @description registered, disabled, compile_failed or not_registered
             * @enum {string}
             */
            runtime_status: "registered" | "disabled" | "compile_failed" | "not_registered";
            serving_version: string | null;
            source: string;
            source_hash: string | null;
        };
        PluginUpload: {
            /** @description default true */
            enabled?: boolean;
            /** @description store even when it conflicts with running plugins */
            force?: boolean;
            /** @description data: URL of a PNG/SVG/WebP icon */
            icon?: string;
            remark?: string;
            /** @description the plugin module (ESM text, at most 1 MiB) */
            source: string;
            sourceSha256?: string | null;
        };
        PluginUploaded: {
            enabled: boolean;
            has_icon: boolean;
            layer: string;
            meta: components["schemas"]["PluginManifest"];
            plugin: string;
            sha256: string;
            source: string;
            version: string;
        };
        PluginVersion: {
            active: boolean;
            has_icon: boolean;
            meta: components["schemas"]["PluginManifest"];
            sha256: string;
            source_hash: string;
            /** @description unix s */
            uploaded_at: number;
            version: string;
        };
        Price: {
            /** @description USD per 1M audio input tokens (default: input) */
            audio_input?: number;
            /** @description USD per 1M audio output tokens (default: output) */
            audio_output?: number;
            cache_write_1h: number | null;
            cache_write_5m: number | null;
            cached_input: number | null;
            expression: string | null;
            /** @description USD per 1M image input tokens (default: input) */
            image_input?: number;
            /** @description USD per 1M image output tokens (default: output) */
            image_output?: number;
            input: number | null;
            model: string;
            output: number | null;
            per_request: number | null;
            /** @description USD per 1M reasoning tokens (default: output) */
            reasoning?: number;
            /** @description USD per 1,000 calls, by server tool */
            server_tools?: {
                [key: string]: number;
            };
            /** @description multiplier of the token cost by the service tier the upstream reports */
            service_tiers?: {
                [key: string]: number;
            };
            /** @description context tiers: the whole call at the rates of the highest tier its input exceeds */
            tiers?: {
                above_input_tokens: number;
                cache_write_1h?: number | null;
                cache_write_5m?: number | null;
                cached_input?: number | null;
                input: number;
                output: number;
            }[];
            updated_at: number;
            /** @description USD per 1,000 web searches the upstream reports */
            web_search?: number;
        };
        /** @description a whole price: fields not given are cleared; at least one of input/output, per_request, expression or a rule */
        PriceInput: {
            /** @description USD per 1M audio input tokens (default: input) */
            audio_input?: number;
            /** @description USD per 1M audio output tokens (default: output) */
            audio_output?: number;
            cache_write_1h?: number | null;
            cache_write_5m?: number | null;
            cached_input?: number | null;
            expression?: string | null;
            /** @description USD per 1M image input tokens (default: input) */
            image_input?: number;
            /** @description USD per 1M image output tokens (default: output) */
            image_output?: number;
            input?: number | null;
            model: string;
            output?: number | null;
            per_request?: number | null;
            /** @description USD per 1M reasoning tokens (default: output) */
            reasoning?: number;
            /** @description USD per 1,000 calls, by server tool */
            server_tools?: {
                [key: string]: number;
            };
            /** @description multiplier of the token cost by the service tier the upstream reports */
            service_tiers?: {
                [key: string]: number;
            };
            /** @description context tiers: the whole call at the rates of the highest tier its input exceeds */
            tiers?: {
                above_input_tokens: number;
                cache_write_1h?: number | null;
                cache_write_5m?: number | null;
                cached_input?: number | null;
                input: number;
                output: number;
            }[];
            /** @description USD per 1,000 web searches the upstream reports */
            web_search?: number;
        };
        PricePreview: {
            /** @description the reserve a call of these token counts holds */
            bound_quota: number;
            group_ratio: number;
            /** @description what the call would be charged (quota units) */
            quota: number;
            tier: number | null;
            usd: number;
        };
        PricePreviewInput: {
            /** @description group whose ratio applies (default: default) */
            group?: string;
            headers?: {
                [key: string]: string;
            };
            /** @description UTC hour 0–23 (default: now) */
            hour?: number;
            /** @description a saved price (when `price` is not given) */
            model?: string;
            /** @description request parameters an expression reads */
            params?: {
                [key: string]: unknown;
            };
            price?: components["schemas"]["PriceInput"];
            usage?: {
                audio_input_tokens?: number;
                audio_output_tokens?: number;
                cache_write_1h_tokens?: number;
                cache_write_tokens?: number;
                cached_input_tokens?: number;
                image_input_tokens?: number;
                image_output_tokens?: number;
                input_tokens?: number;
                output_tokens?: number;
                reasoning_tokens?: number;
                server_tools?: {
                    [key: string]: number;
                };
                service_tier?: string;
            };
        };
        PublicPricing: {
            groups: {
                group: string;
                ratio: number;
            }[];
            models: {
                groups: string[];
                model: string;
                /** @description group → price in that group (USD per 1M tokens, or per call), the group ratio applied */
                prices: {
                    [key: string]: {
                        cached_input: number | null;
                        input: number | null;
                        output: number | null;
                        per_request: number | null;
                    };
                };
            }[];
        };
        QuotaChange: {
            /** @description quota units */
            amount?: number;
            /** @description USD */
            amount_usd?: number;
            /** @description add (default; negative amounts deduct) or set */
            mode?: "add" | "set";
            /** @description why (up to 500 characters); shown in the ledger history and the user's logs */
            reason?: string;
        };
        QuotaHold: {
            amount: number;
            created_at: number;
            expires_at: number;
            held: number;
            key_id: number | null;
            node: string;
            ref: string;
            spent: number;
            user_id: number;
        };
        Readiness: {
            checks: {
                /** @enum {string} */
                database: "ok" | "failed";
                /** @enum {string} */
                plugins: "ok" | "not built";
                /** @enum {string} */
                redis: "ok" | "failed" | "not configured";
                /** @enum {string} */
                shutdown: "ok" | "shutting down";
            };
            /** @description what failed, without credentials */
            errors?: string[];
            ready: boolean;
            /** @description what works in a degraded way (Redis unavailable: rate limits and throttles count on this node alone) */
            warnings?: string[];
        };
        /** @description Confirms a sensitive change (docs/two-factor.md#confirming-sensitive-changes): 403 reauth_required without it, 400 when it is wrong (counted as a failed login) */
        Reauth: {
            /** @description accounts without a password: a passkey assertion (options from POST /api/user/reauth/passkey-options) */
            assertion?: {
                [key: string]: unknown;
            };
            /** @description accounts without a password: a code of the authenticator app, or a recovery code */
            code?: string;
            /** @description the current password (accounts that have one) */
            password?: string;
        };
        RecoveryCodes: {
            /** @description shown once; empty when unused ones remain */
            recovery_codes: string[];
        };
        Redeemed: {
            /** @description the balance after the credit */
            balance: number;
            /** @description the plan granted, for a plan code */
            plan_id?: number;
            quota: number;
            quota_usd: number;
        };
        RedemptionBatch: {
            /** @description codes to create (default 1) */
            count?: number | string | null;
            /** @description unix seconds (New API); 0 = never */
            expired_time?: number | string | null;
            /** @description unix ms; 0 = never */
            expires_at?: number | string | null;
            /** @description at most 128 characters */
            name: string;
            /** @description at most 500 characters */
            note?: string | null;
            /** @description a plan (id or name) each code grants instead of quota */
            plan_id?: (number | string) | null;
            /** @description quota units per code (or quota_usd) */
            quota?: number | string | null;
            /** @description USD per code */
            quota_usd?: number | string | null;
        };
        RedemptionCode: {
            /** @description the code in full (32 hex characters) */
            code: string;
            /** @description unix ms */
            created_at: number;
            created_by: number | null;
            /** @description unix ms; 0 = never */
            expires_at: number;
            id: number;
            name: string;
            note: string;
            plan_id: number | null;
            /** @description quota units credited */
            quota: number;
            quota_usd: number;
            redeemed_at: number | null;
            /** @enum {string} */
            status: "enabled" | "disabled" | "used" | "expired";
            used_user_id: number | null;
        };
        SelfUser: {
            budget: number | null;
            budget_period: ("day" | "week" | "month") | null;
            budget_resets_at: number | null;
            budget_spent: number | null;
            budget_spent_usd: number | null;
            budget_usd: number | null;
            /** @description unix ms */
            created_at: number;
            display_name: string;
            group: string;
            id: number;
            max_concurrency: number | null;
            public_url: string | null;
            /** @description remaining balance in quota units (QUOTA_PER_USD per USD) */
            quota: number;
            /** @description quota units per USD (QUOTA_PER_USD) */
            quota_per_usd: number;
            quota_usd: number;
            /** @description how a sensitive change is confirmed: the current password; a second-factor code or passkey (no password); a sign-in within 10 minutes (neither) */
            reauth: "password" | "second_factor" | "recent_sign_in";
            request_count: number;
            role: "user" | "admin" | "root";
            rpm: number | null;
            status: "enabled" | "disabled";
            tpm: number | null;
            /** @description unix ms */
            updated_at: number;
            used_quota: number;
            username: string;
        };
        ServingPlugin: {
            active_version: string | null;
            enabled: boolean;
            key: string;
            meta: components["schemas"]["PluginManifest"];
            remark: string;
            runtime_error?: string;
            /**
             * @description registered, disabled, compile_failed or not_registered
             * @enum {string}
             */
            runtime_status: "registered" | "disabled" | "compile_failed" | "not_registered";
            serving_version: string | null;
            source_hash: string;
        };
        SsoLink: {
            button_label: string;
            id: string;
            linked: {
                created_at: number;
                email: string | null;
                last_login_at: number;
                provider_id: string;
            } | null;
            name: string;
        };
        SsoProvider: {
            /** @description first login: link to the account with the same verified e-mail (else create), or always create */
            account_mode: "link" | "create";
            /** @description http:// addresses beyond loopback */
            allow_insecure: boolean;
            api_url: string | null;
            button_label: string;
            changed_by: number | null;
            /** @description their role then (the file counts as root): a sign-in through the provider never lands in an account of this role or above, unless root */
            changed_by_role: "user" | "admin" | "root";
            client_id: string;
            /** @description the secret itself is never returned */
            client_secret_set: boolean;
            created_at: number;
            /** @description group of accounts a first login creates */
            default_group: string;
            enabled: boolean;
            /** @description slug used in URLs */
            id: string;
            /** @description OpenID issuer (discovery), or the GitHub web address */
            issuer: string;
            kind: "oidc" | "github";
            name: string;
            /** @description {PUBLIC_URL}/api/sso/{id}/callback: register it with the provider */
            redirect_uri: string;
            scopes: string[];
            sort: number;
            updated_at: number;
        };
        SsoProviderInput: {
            /** @description link or create */
            account_mode?: string;
            allow_insecure?: boolean;
            api_url?: string | null;
            button_label?: string;
            client_id?: string;
            /** @description write only */
            client_secret?: string;
            default_group?: string;
            enabled?: boolean;
            /** @description create only: lower-case letters, digits, _ and - */
            id?: string;
            /** @description https URL (http for loopback or with allow_insecure); GitHub: default https://github.com */
            issuer?: string;
            /** @description create only: oidc or github; default oidc */
            kind?: string;
            name?: string;
            scopes?: string[] | string;
            sort?: number;
        };
        SsoPublicProvider: {
            button_label: string;
            id: string;
            name: string;
        };
        /** @description a task's completion callback; times are unix seconds in GET /v1/tasks/{taskId} and unix ms in /api/task */
        TaskCallback: {
            attempts: number;
            delivered_at: number | null;
            /** @description dlv_…: the same on every attempt (X-Delivery-Id) */
            delivery_id: string;
            /** @description the latest attempts (up to 20) */
            history: {
                at: number;
                duration_ms: number;
                error: string | null;
                status: number | null;
            }[];
            last_attempt_at: number | null;
            last_error: string | null;
            last_status: number | null;
            next_attempt_at: number | null;
            /**
             * @description waiting: the task is not finished; pending: due or retrying; delivered; failed: given up; skipped: the result was not kept
             * @enum {string}
             */
            status: "waiting" | "pending" | "delivered" | "failed" | "skipped";
            url: string;
        };
        TaskResolve: {
            /**
             * @description refund | fail: FAILURE and refund; charge: settle at the reserved amount; poll: resume polling with upstream_task_id
             * @enum {string}
             */
            action: "refund" | "fail" | "charge" | "poll";
            /** @description kept in the flag reason and, for failures, as fail_reason */
            reason?: string;
            /**
             * @description charge only: how the task ends (default SUCCESS)
             * @enum {string}
             */
            status?: "SUCCESS" | "FAILURE";
            /** @description poll: required; charge: optional */
            upstream_task_id?: string;
        };
        TaskView: {
            callback?: components["schemas"]["TaskCallback"];
            /** @description unix s */
            created_at: number;
            fail_reason: string;
            finished_at: number | null;
            model: string;
            /** @description plugin key */
            platform: string;
            progress: string;
            started_at: number | null;
            /** @enum {string} */
            status: "NOT_START" | "SUBMITTED" | "QUEUED" | "IN_PROGRESS" | "SUCCESS" | "FAILURE" | "UNKNOWN";
            task_id: string;
            updated_at: number;
        };
        Team: {
            budget_period: string | null;
            budget_usd: number | null;
            created_at: number;
            group: string | null;
            id: number;
            max_concurrency: number;
            models: string[] | null;
            /** @description the caller's role in the team; operator: a gateway admin */
            my_role?: "operator" | "owner" | "admin" | "member" | "viewer";
            name: string;
            /** @description the wallet's balance, quota units */
            quota: number;
            quota_usd: number;
            request_count: number;
            rpm: number;
            settings: {
                /** @description team owners and admins may top up the wallet */
                allow_admin_topup?: boolean;
                /** @description team owners and admins see the request and answer text of other members' calls */
                share_bodies?: boolean;
            };
            tpm: number;
            updated_at: number;
            used_quota: number;
            used_quota_usd: number;
        };
        TeamInput: {
            budget_period?: ("day" | "week" | "month") | null;
            budget_usd?: number | null;
            group?: string | null;
            max_concurrency?: number;
            models?: string[] | null;
            name?: string;
            rpm?: number;
            settings?: {
                /** @description team owners and admins may top up the wallet */
                allow_admin_topup?: boolean;
                /** @description team owners and admins see the request and answer text of other members' calls */
                share_bodies?: boolean;
            };
            tpm?: number;
        };
        TeamInvitation: {
            accepted_at: number | null;
            accepted_by: number | null;
            created_at: number;
            created_by: number | null;
            email: string;
            expires_at: number;
            id: number;
            revoked_at: number | null;
            /** @description a role in the team */
            role: "owner" | "admin" | "member" | "viewer";
            team_id: number;
        };
        TeamMember: {
            budget_period: string | null;
            budget_usd: number | null;
            created_at: number;
            display_name: string;
            /** @description a role in the team */
            role: "owner" | "admin" | "member" | "viewer";
            team_id: number;
            user_id: number;
            username: string;
        };
        TeamUsage: {
            days: {
                calls: number;
                completion_tokens: number;
                /** @description the UTC day's start, unix ms */
                day: number;
                prompt_tokens: number;
                quota: number;
                quota_usd: number;
            }[];
            from: number;
            members: {
                calls: number;
                completion_tokens: number;
                prompt_tokens: number;
                quota: number;
                quota_usd: number;
                user_id: number;
                username: string;
            }[];
            to: number;
            totals: {
                calls: number;
                completion_tokens: number;
                prompt_tokens: number;
                quota: number;
                quota_usd: number;
            };
        };
        TopupInfo: {
            /** @description ISO code, lower case */
            currency: string;
            maxAmount: number;
            minAmount: number;
            /** @description configured providers, e.g. stripe */
            providers: string[];
            /** @description quota units per unit of the currency */
            quotaPerUnit: number;
        };
        TotpSetup: {
            otpauth_uri: string;
            /** @description base32 */
            secret: string;
        };
        TwoFactorStatus: {
            /** @description a login needs a second factor */
            enabled: boolean;
            passkeys: number;
            /** @description PUBLIC_URL is set */
            passkeys_available: boolean;
            recovery_codes_left: number;
            /** @description AdminRequireTwoFactor applies to you */
            required: boolean;
            totp_enabled: boolean;
            /** @description an enrolment waits for its first code */
            totp_pending: boolean;
        };
        Usage: {
            completion_tokens?: number;
            prompt_tokens?: number;
            total_tokens?: number;
        };
        UsageGroup: {
            cache_hit_rate: number | null;
            /** @description what the cache reads saved against the uncached input price (quota units, at the prices of each call) */
            cache_saving_quota: number;
            /** @description what the cache writes cost (quota units, at the prices of each call) */
            cache_write_quota: number;
            /** @description prompt tokens written to the prompt cache */
            cache_write_tokens: number;
            /** @description prompt tokens read from the prompt cache */
            cached_tokens: number;
            errors: number;
            /** @description model name, or user, key or channel id */
            key: string;
            /** @description model, username, key name or channel name */
            label: string;
            /** @description quota − upstream_cost (administrators' report only) */
            margin?: number;
            prompt_tokens: number;
            /** @description revenue: what callers were charged */
            quota: number;
            requests: number;
            /** @description prompt + completion */
            tokens: number;
            /** @description what the calls cost upstream: list price × the channel's cost_ratio (administrators' report only) */
            upstream_cost?: number;
        };
        UsagePoint: {
            cache_hit_rate: number | null;
            /** @description what the cache reads saved against the uncached input price (quota units, at the prices of each call) */
            cache_saving_quota: number;
            /** @description what the cache writes cost (quota units, at the prices of each call) */
            cache_write_quota: number;
            /** @description prompt tokens written to the prompt cache */
            cache_write_tokens: number;
            /** @description prompt tokens read from the prompt cache */
            cached_tokens: number;
            completion_tokens: number;
            errors: number;
            p50_ms: number | null;
            p95_ms: number | null;
            prompt_tokens: number;
            quota: number;
            requests: number;
            /** @description bucket start, unix ms */
            t: number;
        };
        UsageReport: {
            bucket: "hour" | "day";
            from: number;
            group_by: ("model" | "user" | "channel" | "key") | null;
            /** @description top groups by quota (empty without group_by) */
            groups: components["schemas"]["UsageGroup"][];
            /** @description every bucket of the range, empty ones included */
            series: components["schemas"]["UsagePoint"][];
            to: number;
            totals: {
                cache_hit_rate: number | null;
                /** @description what the cache reads saved against the uncached input price (quota units, at the prices of each call) */
                cache_saving_quota: number;
                /** @description cache_saving_quota in USD */
                cache_saving_usd: number;
                /** @description what the cache writes cost (quota units, at the prices of each call) */
                cache_write_quota: number;
                /** @description prompt tokens written to the prompt cache */
                cache_write_tokens: number;
                /** @description cache_write_quota in USD */
                cache_write_usd: number;
                /** @description prompt tokens read from the prompt cache */
                cached_tokens: number;
                completion_tokens: number;
                errors: number;
                p50_ms: number | null;
                p95_ms: number | null;
                prompt_tokens: number;
                quota: number;
                quota_usd: number;
                requests: number;
            };
        };
        User: {
            budget: number | null;
            budget_period: ("day" | "week" | "month") | null;
            budget_resets_at: number | null;
            budget_spent: number | null;
            budget_spent_usd: number | null;
            budget_usd: number | null;
            /** @description unix ms */
            created_at: number;
            display_name: string;
            group: string;
            id: number;
            max_concurrency: number | null;
            /** @description remaining balance in quota units (QUOTA_PER_USD per USD) */
            quota: number;
            quota_usd: number;
            request_count: number;
            role: "user" | "admin" | "root";
            rpm: number | null;
            status: "enabled" | "disabled";
            tpm: number | null;
            /** @description unix ms */
            updated_at: number;
            used_quota: number;
            username: string;
        };
        UserCreate: {
            budget?: number | null;
            budget_period?: ("day" | "week" | "month") | null;
            budget_usd?: number | null;
            display_name?: string;
            /** @default default */
            group: string;
            max_concurrency?: number | null;
            /** @description 8-256 characters */
            password: string;
            /** @description starting balance in quota units */
            quota?: number;
            /** @description starting balance in USD */
            quota_usd?: number;
            role?: "user" | "admin" | "root";
            rpm?: number | null;
            status?: "enabled" | "disabled";
            tpm?: number | null;
            /** @description 1-64 of letters, digits, _ . @ - */
            username: string;
        };
        UserUpdate: {
            budget?: number | null;
            budget_period?: ("day" | "week" | "month") | null;
            budget_usd?: number | null;
            display_name?: string;
            group?: string;
            max_concurrency?: number | null;
            /** @description 8-256 characters; ends the user's sessions */
            password?: string;
            role?: "user" | "admin" | "root";
            rpm?: number | null;
            status?: "enabled" | "disabled";
            tpm?: number | null;
            username?: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
