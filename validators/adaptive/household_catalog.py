"""The household-jobs world: the PDDL domain and the catalogue of tools, materials and jobs
the generated problems draw from (:mod:`.household`).

Every object carries attributes a person would name (an iron is ``high-heat``,
``electric``, ``heavy``; vinegar is ``acidic`` and ``smelly``): the user preferences of a
profile are written over them, and the agent, which is not shown them, must infer them
from the user's words, as in AdaPlanBench (L39, L468). Capabilities say which jobs a tool
can do, classes which jobs a material serves; many tools share a capability, so every job
has many substitutes.
"""
from __future__ import annotations

__all__ = ["DOMAIN", "TOOLS", "MATERIALS", "JOBS", "ROOMS"]

DOMAIN = """;; Household jobs with many substitutable tools and materials (AdaPlanBench scale).
;; Written by planning_core.validators.adaptive.household (issue 21).
(define (domain household-jobs)
  (:requirements :strips :typing)
  (:types room thing - object
          tool material item - thing)
  (:predicates (robot-at ?r - room)
               (connected ?a - room ?b - room)
               (at ?x - thing ?r - room)
               (holding ?t - tool)
               (hand-free)
               (carrying ?m - material)
               (suits ?t - tool ?i - item)
               (fits ?m - material ?i - item)
               (prepared ?i - item)
               (done ?i - item))
  (:action move
    :parameters (?from - room ?to - room)
    :precondition (and (robot-at ?from) (connected ?from ?to))
    :effect (and (robot-at ?to) (not (robot-at ?from))))
  (:action pick-up
    :parameters (?t - tool ?r - room)
    :precondition (and (robot-at ?r) (at ?t ?r) (hand-free))
    :effect (and (holding ?t) (not (at ?t ?r)) (not (hand-free))))
  (:action put-down
    :parameters (?t - tool ?r - room)
    :precondition (and (robot-at ?r) (holding ?t))
    :effect (and (at ?t ?r) (hand-free) (not (holding ?t))))
  (:action take
    :parameters (?m - material ?r - room)
    :precondition (and (robot-at ?r) (at ?m ?r))
    :effect (and (carrying ?m) (not (at ?m ?r))))
  (:action apply
    :parameters (?m - material ?i - item ?r - room)
    :precondition (and (carrying ?m) (robot-at ?r) (at ?i ?r) (fits ?m ?i))
    :effect (and (prepared ?i) (not (carrying ?m))))
  (:action treat
    :parameters (?t - tool ?i - item ?r - room)
    :precondition (and (holding ?t) (robot-at ?r) (at ?i ?r) (prepared ?i) (suits ?t ?i))
    :effect (and (done ?i))))
"""

# name -> (capabilities, attributes). Capabilities: smooth, scrub, fasten, unclog, dry, heat.
TOOLS = {
    "iron": ("smooth", "high-heat electric heavy corded metal"),
    "garment-steamer": ("smooth", "high-heat electric corded wet bulky"),
    "hair-dryer": ("smooth dry", "high-heat electric noisy corded plastic"),
    "hair-straightener": ("smooth", "high-heat electric corded borrowed"),
    "kettle": ("smooth heat", "high-heat electric corded metal"),
    "heavy-book": ("smooth", "heavy paper sentimental"),
    "rolling-pin": ("smooth", "wooden heavy food-contact"),
    "saucepan": ("smooth heat", "metal heavy food-contact greasy"),
    "shower": ("smooth", "wet water-wasting"),
    "clothes-dryer": ("smooth dry", "high-heat electric noisy bulky energy-hungry"),
    "towel": ("smooth dry scrub", "fabric soft"),
    "mattress": ("smooth", "bulky heavy soft"),
    "glass-bottle": ("smooth", "glass fragile heavy"),
    "flat-rock": ("smooth", "heavy dirty outdoor"),
    "ruler": ("smooth", "plastic"),
    "dish-brush": ("scrub", "plastic food-contact wet"),
    "steel-wool": ("scrub", "abrasive metal sharp-edged disposable"),
    "toothbrush": ("scrub", "plastic borrowed food-contact"),
    "sponge": ("scrub", "wet soft disposable"),
    "scouring-pad": ("scrub", "abrasive disposable wet"),
    "pressure-washer": ("scrub unclog", "noisy electric wet water-wasting bulky"),
    "steam-cleaner": ("scrub", "high-heat electric wet corded bulky"),
    "old-t-shirt": ("scrub dry", "fabric soft sentimental"),
    "scraper": ("scrub", "sharp metal"),
    "wire-brush": ("scrub", "abrasive metal sharp-edged"),
    "electric-toothbrush": ("scrub", "electric battery-powered vibrating borrowed"),
    "microfiber-cloth": ("scrub dry", "fabric soft"),
    "pumice-stone": ("scrub", "abrasive heavy outdoor"),
    "broom": ("scrub unclog", "bulky wooden dusty"),
    "crumpled-foil": ("scrub", "metal disposable sharp-edged"),
    "screwdriver": ("fasten", "metal pointed"),
    "cordless-drill": ("fasten", "electric noisy vibrating battery-powered heavy"),
    "hammer": ("fasten", "metal heavy noisy"),
    "wrench": ("fasten", "metal heavy"),
    "pliers": ("fasten", "metal pinching"),
    "butter-knife": ("fasten", "metal food-contact sharp-edged"),
    "coin": ("fasten", "metal dirty"),
    "clamp": ("fasten", "metal heavy pinching"),
    "glue-gun": ("fasten", "high-heat electric corded sticky"),
    "staple-gun": ("fasten", "pointed noisy metal"),
    "multitool": ("fasten", "sharp metal borrowed"),
    "mallet": ("fasten", "wooden heavy noisy"),
    "shoe": ("fasten", "dirty leather"),
    "allen-key": ("fasten", "metal"),
    "kitchen-tongs": ("fasten", "metal food-contact"),
    "plunger": ("unclog", "rubber dirty smelly"),
    "wire-hanger": ("unclog", "metal pointed"),
    "drain-snake": ("unclog", "metal dirty smelly"),
    "wet-vacuum": ("unclog dry", "electric noisy bulky corded"),
    "turkey-baster": ("unclog", "plastic food-contact"),
    "bucket": ("unclog", "bulky plastic wet"),
    "garden-hose": ("unclog", "outdoor wet water-wasting rubber"),
    "chopstick": ("unclog", "wooden food-contact"),
    "bent-fork": ("unclog", "metal food-contact pointed"),
    "zip-tie-tool": ("unclog", "plastic disposable"),
    "bottle-brush": ("unclog", "plastic wet"),
    "shop-vacuum": ("unclog dry", "electric noisy bulky heavy corded dusty"),
    "tweezers": ("unclog", "metal pointed pinching"),
    "fan": ("dry", "electric noisy corded"),
    "radiator": ("dry", "high-heat metal heavy"),
    "oven": ("dry heat", "high-heat electric bulky energy-hungry"),
    "dehumidifier": ("dry", "electric noisy bulky energy-hungry"),
    "space-heater": ("dry", "high-heat electric fire-risk energy-hungry"),
    "sunny-windowsill": ("dry", "outdoor slow"),
    "paper-towel-roll": ("dry", "paper disposable"),
    "salad-spinner": ("dry", "plastic food-contact"),
    "laptop-vent": ("dry", "electric high-heat borrowed fragile"),
    "stove": ("heat", "high-heat gas-powered fire-risk open-flame"),
    "microwave": ("heat", "electric radiation-emitting"),
    "camping-stove": ("heat", "high-heat gas-powered fire-risk open-flame outdoor"),
    "grill": ("heat", "high-heat open-flame outdoor smoky greasy"),
    "toaster-oven": ("heat", "high-heat electric corded"),
    "slow-cooker": ("heat", "electric corded slow"),
    "candle-warmer": ("heat", "open-flame slow fire-risk"),
    "blowtorch": ("heat", "high-heat open-flame fire-risk gas-powered loud"),
    "induction-plate": ("heat", "electric magnetic corded"),
    "rice-cooker": ("heat", "electric corded food-contact"),
    "thermos": ("heat", "metal slow"),
    "air-fryer": ("heat", "high-heat electric noisy greasy"),
    "waffle-iron": ("heat", "high-heat electric greasy borrowed"),
    "sous-vide-stick": ("heat", "electric wet expensive"),
}

# name -> (classes, attributes). Classes: moisture, cleaner, fastener, loosener, absorbent,
# liquid.
MATERIALS = {
    "water-spray": ("moisture", "wet"),
    "vinegar-mist": ("moisture cleaner loosener", "acidic smelly wet"),
    "fabric-softener": ("moisture", "scented chemical sticky"),
    "damp-towel": ("moisture absorbent", "wet fabric"),
    "starch-spray": ("moisture", "chemical sticky aerosol"),
    "lavender-water": ("moisture", "scented wet"),
    "steam-from-kettle": ("moisture", "high-heat wet"),
    "wrinkle-release-spray": ("moisture", "chemical aerosol scented"),
    "dish-soap": ("cleaner loosener", "scented soapy"),
    "baking-soda": ("cleaner absorbent loosener", "powdery abrasive"),
    "bleach": ("cleaner", "toxic chemical smelly staining"),
    "lemon-juice": ("cleaner loosener", "acidic food-contact sticky"),
    "glass-cleaner": ("cleaner", "chemical aerosol smelly"),
    "salt": ("cleaner absorbent", "abrasive powdery food-contact"),
    "oven-cleaner": ("cleaner", "toxic chemical aerosol smelly"),
    "rubbing-alcohol": ("cleaner", "flammable chemical smelly"),
    "toothpaste": ("cleaner", "abrasive scented sticky"),
    "wood-glue": ("fastener", "sticky chemical slow"),
    "duct-tape": ("fastener", "sticky plastic ugly"),
    "screws": ("fastener", "metal pointed"),
    "nails": ("fastener", "metal pointed sharp-edged"),
    "zip-ties": ("fastener", "plastic disposable"),
    "super-glue": ("fastener", "toxic sticky chemical"),
    "epoxy": ("fastener", "toxic chemical smelly sticky"),
    "wire": ("fastener", "metal sharp-edged"),
    "string": ("fastener", "fabric"),
    "boiling-water": ("loosener liquid", "high-heat wet"),
    "drain-cleaner": ("loosener", "toxic chemical smelly corrosive"),
    "enzyme-cleaner": ("loosener cleaner", "smelly slow"),
    "cola": ("loosener liquid", "sticky acidic food-contact"),
    "cooking-oil": ("loosener liquid", "greasy food-contact flammable"),
    "rice": ("absorbent", "food-contact powdery"),
    "newspaper": ("absorbent", "paper dirty"),
    "silica-gel": ("absorbent", "toxic chemical"),
    "cat-litter": ("absorbent", "dusty smelly"),
    "coffee-grounds": ("absorbent", "smelly staining food-contact"),
    "paper-towels": ("absorbent", "paper disposable"),
    "cornstarch": ("absorbent", "powdery food-contact"),
    "water": ("liquid", "wet"),
    "broth": ("liquid", "food-contact scented"),
    "milk": ("liquid", "food-contact dairy"),
    "butter": ("liquid", "greasy dairy food-contact"),
    "wine": ("liquid", "alcoholic food-contact expensive"),
    "coconut-milk": ("liquid", "food-contact allergen"),
    "ice-cubes": ("moisture", "cold wet"),
    "witch-hazel": ("moisture", "scented alcoholic"),
    "hairspray": ("moisture", "aerosol sticky flammable"),
    "aloe-gel": ("moisture", "sticky"),
    "rose-water": ("moisture", "scented wet"),
    "hot-glue-sticks": ("fastener", "sticky high-heat"),
    "velcro-strips": ("fastener", "plastic sticky"),
    "rubber-bands": ("fastener", "rubber"),
    "bolts": ("fastener", "metal heavy"),
    "chewing-gum": ("fastener", "sticky food-contact gross"),
    "sewing-thread": ("fastener", "fabric"),
    "hydrogen-peroxide": ("loosener cleaner", "chemical bleaching"),
    "borax": ("loosener cleaner", "toxic powdery"),
    "washing-soda": ("loosener cleaner", "chemical abrasive powdery"),
    "hot-vinegar": ("loosener", "acidic high-heat smelly"),
    "sawdust": ("absorbent", "dusty wooden"),
    "tea-bags": ("absorbent", "staining food-contact"),
    "oatmeal": ("absorbent", "food-contact powdery"),
    "tomato-juice": ("liquid", "acidic food-contact staining"),
    "cream": ("liquid", "dairy greasy food-contact"),
    "beer": ("liquid", "alcoholic food-contact smelly"),
    "apple-juice": ("liquid", "sticky food-contact sweet"),
    "soy-milk": ("liquid", "food-contact allergen"),
    "lemonade": ("liquid", "sweet sticky food-contact acidic"),
}

# job -> (capability, material class, items, goal words)
JOBS = {
    "smooth": ("smooth", "moisture", ("shirt", "suit", "curtain", "tablecloth", "dress"),
               "remove the wrinkles from"),
    "clean": ("scrub", "cleaner", ("pan", "oven-tray", "window", "rug", "bathtub"),
              "clean"),
    "fix": ("fasten", "fastener", ("chair", "shelf", "table-leg", "cabinet-door", "stool"),
            "fix"),
    "unclog": ("unclog", "loosener", ("sink", "drain", "toilet", "shower-drain"),
               "unclog"),
    "dry": ("dry", "absorbent", ("shoes", "phone", "backpack", "carpet-spot"), "dry"),
    "heat": ("heat", "liquid", ("soup", "porridge", "sauce", "leftovers"), "heat"),
}
ROOMS = ("kitchen", "hall", "living-room", "bathroom", "garage")
