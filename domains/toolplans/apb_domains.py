"""Eight more tool domains for the APB-sized sets (issue 22), written for this project.

Each tool is ``(name, description, {parameter: data type}, [output types], extra)``; a
parameter whose type is a list is a free literal with that enum; ``extra`` may hold
``requires``, ``after`` and ``cost`` (the ``x-planning`` annotations of docs/toolplans.md).
With the three JSON tool sets of this folder (travel, files, data) they make eleven tool
domains; :func:`tool_json` writes one in the tool format the checker reads.
"""
from __future__ import annotations

T = tuple  # (name, description, params, produces, extra)

DOMAINS: dict[str, list[T]] = {
    "calendar": [
        ("find_contact", "Look up a person in the address book by name; returns the contact.",
         {"person": "person_name"}, ["contact"], {}),
        ("get_availability", "Read a contact's free/busy slots for a day.",
         {"contact": "contact", "day": "day"}, ["free_slots"], {}),
        ("propose_slot", "Pick a common free slot of given length from free/busy data.",
         {"slots": "free_slots", "length": ["30min", "60min"]}, ["time_slot"], {}),
        ("book_room", "Reserve a meeting room for a time slot.", {"slot": "time_slot"},
         ["room_booking"], {}),
        ("create_event", "Create a calendar event at a slot with a contact.",
         {"slot": "time_slot", "contact": "contact"}, ["calendar_event"], {}),
        ("send_invite", "Send the invitation of an event to its attendees.",
         {"event": "calendar_event"}, ["invitation"], {"after": ["book_room"]}),
        ("set_reminder", "Attach a reminder to an event.", {"event": "calendar_event"},
         ["reminder"], {}),
        ("export_ics", "Export an event as an .ics file.", {"event": "calendar_event"},
         ["ics_file"], {}),
    ],
    "email": [
        ("search_inbox", "Search the mailbox for messages matching a query.",
         {"query": "search_query"}, ["message_list"], {}),
        ("open_message", "Open the first message of a list; returns the message.",
         {"messages": "message_list"}, ["message"], {}),
        ("extract_attachment", "Extract the attachment of a message.", {"message": "message"},
         ["attachment"], {}),
        ("summarize_thread", "Summarize a message and its thread.", {"message": "message"},
         ["thread_summary"], {}),
        ("draft_reply", "Draft a reply to a message from a summary.",
         {"message": "message", "summary": "thread_summary"}, ["draft"], {}),
        ("send_mail", "Send a drafted message.", {"draft": "draft"}, ["sent_mail"],
         {"requires": ["mail_session"]}),
        ("sign_in_mail", "Sign in to the mail account.", {"account": "mail_account"},
         ["mail_session"], {}),
        ("forward_message", "Forward a message to a recipient.",
         {"message": "message", "to": "email_address"}, ["sent_mail"], {"cost": 2}),
        ("archive_message", "Move a message to the archive.", {"message": "message"},
         ["archived_message"], {}),
    ],
    "shopping": [
        ("search_products", "Search the catalogue for products matching a query.",
         {"query": "product_query"}, ["product_list"], {}),
        ("filter_by_price", "Keep the products under a budget.",
         {"products": "product_list", "budget": "budget"}, ["filtered_products"], {}),
        ("get_product_details", "Details of the first product of a list.",
         {"products": "filtered_products"}, ["product"], {}),
        ("add_to_cart", "Put a product in the cart.", {"product": "product"}, ["cart"],
         {"requires": ["shop_session"]}),
        ("log_in_shop", "Log in to the shop account.", {"user": "shop_user"},
         ["shop_session"], {}),
        ("apply_coupon", "Apply a coupon code to the cart.",
         {"cart": "cart", "code": "coupon_code"}, ["discounted_cart"], {}),
        ("checkout", "Pay for the cart with a card.", {"cart": "cart", "card": "payment_card"},
         ["order"], {}),
        ("track_order", "Track an order's delivery.", {"order": "order"}, ["tracking_info"], {}),
        ("read_reviews", "Read the reviews of a product.", {"product": "product"},
         ["review_digest"], {}),
    ],
    "banking": [
        ("bank_login", "Log in to online banking; returns a session.",
         {"customer": "customer_id"}, ["bank_session"], {}),
        ("list_accounts", "List the customer's accounts.", {}, ["account_list"],
         {"requires": ["bank_session"]}),
        ("get_balance", "Balance of the first account of a list.",
         {"accounts": "account_list"}, ["balance"], {}),
        ("get_transactions", "Transactions of the accounts for a month.",
         {"accounts": "account_list", "month": "month"}, ["transactions"], {}),
        ("categorize_spending", "Group transactions by spending category.",
         {"transactions": "transactions"}, ["spending_report"], {}),
        ("add_payee", "Register a payee by IBAN.", {"iban": "iban"}, ["payee"],
         {"requires": ["bank_session"]}),
        ("transfer_money", "Transfer an amount to a payee.",
         {"payee": "payee", "amount": "amount"}, ["transfer_receipt"], {}),
        ("export_statement", "Export transactions as a PDF statement.",
         {"transactions": "transactions"}, ["statement_pdf"], {}),
    ],
    "maps": [
        ("geocode", "Coordinates of an address.", {"address": "address"}, ["coordinates"], {}),
        ("current_location", "The device's current position.", {}, ["coordinates"], {}),
        ("plan_route", "Route between an origin and a destination.",
         {"origin": "coordinates", "destination": "destination_coordinates"}, ["route"], {}),
        ("geocode_destination", "Coordinates of a destination address.",
         {"address": "destination_address"}, ["destination_coordinates"], {}),
        ("estimate_travel_time", "Travel time of a route.", {"route": "route"},
         ["travel_time"], {}),
        ("find_nearby", "Places of a category near coordinates.",
         {"near": "coordinates", "category": "place_category"}, ["place_list"], {}),
        ("get_place_details", "Details of the first place of a list.",
         {"places": "place_list"}, ["place_details"], {}),
        ("share_route", "Share a route as a link.", {"route": "route"}, ["route_link"], {}),
    ],
    "video": [
        ("load_video", "Load a video file; returns a handle.", {"video": "video_file"},
         ["video_handle"], {}),
        ("sample_frames", "Sample frames between two timestamps.",
         {"video": "video_handle", "span": "time_span"}, ["frames"], {}),
        ("detect_objects", "Detect objects in frames.", {"frames": "frames"},
         ["detections"], {}),
        ("track_character", "Track a character across frames.",
         {"frames": "frames", "who": "character"}, ["track"], {}),
        ("classify_emotion", "Classify the emotion along a track.", {"track": "track"},
         ["emotion_arc"], {}),
        ("transcribe_audio", "Transcribe a video's audio.", {"video": "video_handle"},
         ["transcript"], {}),
        ("summarize_scene", "Summarize a scene from detections and a transcript.",
         {"detections": "detections", "transcript": "transcript"}, ["scene_summary"], {}),
        ("answer_question", "Answer a question about a scene summary.",
         {"summary": "scene_summary", "question": "question"}, ["answer"], {}),
    ],
    "office": [
        ("open_spreadsheet", "Open a spreadsheet file.", {"file": "spreadsheet_file"},
         ["workbook"], {}),
        ("read_range", "Read a cell range of a workbook.",
         {"workbook": "workbook", "range": "cell_range"}, ["table"], {}),
        ("compute_statistics", "Mean, sum and spread of a table's columns.",
         {"table": "table"}, ["statistics"], {}),
        ("make_chart", "Chart of a table.", {"table": "table", "kind": ["bar", "line", "pie"]},
         ["chart"], {}),
        ("write_report", "Write a report from statistics and a chart.",
         {"stats": "statistics", "chart": "chart"}, ["report_doc"], {}),
        ("create_slides", "Make slides from a report.", {"report": "report_doc"},
         ["slide_deck"], {}),
        ("save_as_pdf", "Save a report as PDF.", {"report": "report_doc"}, ["pdf_file"], {}),
        ("web_research", "Search the web for a topic; returns notes.", {"topic": "topic"},
         ["research_notes"], {}),
        ("write_summary", "Write a summary document from research notes.",
         {"notes": "research_notes"}, ["report_doc"], {"cost": 2}),
    ],
    "vision": [
        ("ocr", "Read the text in an image.", {"image": "photo"}, ["image_text"], {}),
        ("detect_items", "Detect and list the items in an image.", {"image": "photo"},
         ["item_list"], {}),
        ("count_items", "Count the items of a list matching a label.",
         {"items": "item_list", "label": "item_label"}, ["item_count"], {}),
        ("parse_prices", "Parse prices out of text.", {"text": "image_text"},
         ["price_table"], {}),
        ("calculator", "Evaluate the total of a price table times a count.",
         {"prices": "price_table", "count": "item_count"}, ["total_cost"], {}),
        ("apply_tax", "Add a tax rate to a total.", {"total": "total_cost", "rate": "tax_rate"},
         ["taxed_total"], {}),
        ("split_bill", "Split a total among people.",
         {"total": "taxed_total", "people": "party_size"}, ["per_person_cost"], {}),
        ("describe_image", "Caption an image.", {"image": "photo"}, ["caption"], {}),
    ],
}


def tool_json(spec: T) -> dict:
    """One compact tool as the JSON the checker reads (OpenAI function format)."""
    name, desc, params, produces, extra = spec
    props, required = {}, []
    for p, t in params.items():
        if isinstance(t, list):
            props[p] = {"type": "string", "enum": list(t)}
        else:
            props[p] = {"type": "string", "description": t.replace("_", " "), "x-data-type": t}
        required.append(p)
    note = {"produces": list(produces), **extra}
    return {"type": "function", "function": {"name": name, "description": desc,
                                             "parameters": {"type": "object",
                                                            "properties": props,
                                                            "required": required}},
            "x-planning": note}


def domain_tools(name: str) -> list[dict]:
    return [tool_json(t) for t in DOMAINS[name]]


if __name__ == "__main__":   # python domains/toolplans/apb_domains.py: (re)write tools/*.json
    import json
    from pathlib import Path
    here = Path(__file__).resolve().parent / "tools"
    for d in DOMAINS:
        (here / f"{d}.json").write_text(json.dumps(domain_tools(d), indent=1) + "\n",
                                        encoding="utf-8")
        print(f"wrote {here / f'{d}.json'}")
