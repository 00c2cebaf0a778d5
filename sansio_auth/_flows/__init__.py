"""The flows behind each route: generators of actions that return a reply."""
