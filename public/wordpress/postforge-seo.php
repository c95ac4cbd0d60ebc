<?php
/**
 * Plugin Name: Postforge SEO fields
 * Description: Lets Postforge write the meta description, focus keyword and SEO title of the posts it publishes into Yoast SEO's and Rank Math's fields, through the REST API. Registers exactly those six post meta keys for REST, writable by users who can edit posts.
 * Version: 1.1.0
 * Requires at least: 5.6
 * License: MIT
 */

if (!defined('ABSPATH')) {
	exit;
}

// WordPress keeps post meta out of its REST API unless a plugin registers the key with
// show_in_rest. These are the keys Yoast SEO and Rank Math read; keys starting with "_" are
// protected, so the auth_callback says who may write them: users who can edit posts.
function postforge_seo_meta_keys() {
	return array(
		'_yoast_wpseo_metadesc',
		'_yoast_wpseo_focuskw',
		'_yoast_wpseo_title',
		'rank_math_description',
		'rank_math_focus_keyword',
		'rank_math_title',
	);
}

add_action('init', function () {
	foreach (postforge_seo_meta_keys() as $key) {
		register_post_meta('post', $key, array(
			'type' => 'string',
			'single' => true,
			'show_in_rest' => true,
			'auth_callback' => function () {
				return current_user_can('edit_posts');
			},
		));
	}
});

// Postforge's "Test connection" sees this namespace in the REST index while the plugin is active.
add_action('rest_api_init', function () {
	register_rest_route('postforge/v1', '/status', array(
		'methods' => 'GET',
		'callback' => function () {
			return array('active' => true, 'version' => '1.1.0', 'metaKeys' => postforge_seo_meta_keys());
		},
		'permission_callback' => function () {
			return current_user_can('edit_posts');
		},
	));
});
